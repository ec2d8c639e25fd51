package dev.idem.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idem.*} configuration properties. Store properties follow the scheme every
 * {@link dev.idem.api.store.StoreProvider} reads, {@code idem.store.<kind>.<kebab-name>}, so
 * one name means the same thing with or without Spring.
 */
@ConfigurationProperties(prefix = "idem")
public class IdemProperties {
    /** Whether idem is auto-configured at all. */
    private boolean enabled = true;
    /** How long a claim is protected before a duplicate may take it over. */
    private Duration lease = Duration.ofSeconds(30);
    /** How long records live; an expired record counts as absent. */
    private Duration ttl = Duration.ofHours(24);
    /**
     * How long a duplicate waits for an in-progress original before failing with 409; unset
     * means fail at once.
     */
    private Duration inProgressWait;
    /** Size of the process-local cache of completed records; 0 turns it off. */
    private int nearCache;
    /**
     * The largest request fingerprinted, in bytes: the engine's limit, and the largest body the
     * Idempotency-Key filter accepts on a covered route (larger: 413, the handler never runs).
     */
    private int maxRequestBytes = 1024 * 1024;
    /**
     * The most asynchronous calls in flight at once (the WebFlux filter, @Idempotent methods
     * returning a Mono or a CompletionStage, executeAsync); a call beyond it is refused at once
     * and runs nothing (HTTP 503 too-busy). Unset: the engine's default, 10000.
     */
    private Integer maxAsyncCalls;
    /**
     * How long the lease of asynchronous work that is still pending is kept alive; after it the
     * lease lapses and a duplicate may take the key over. Unset: the engine's default, 5 minutes.
     */
    private Duration maxPendingWork;

    private final Store store = new Store();
    private final Http http = new Http();
    private final Aop aop = new Aop();
    private final Purge purge = new Purge();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();

    /**
     * Whether idem is auto-configured.
     *
     * @return true unless {@code idem.enabled=false}
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets {@code idem.enabled}.
     *
     * @param enabled whether idem is auto-configured
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The default lease.
     *
     * @return the lease
     */
    public Duration getLease() {
        return lease;
    }

    /**
     * Sets {@code idem.lease}.
     *
     * @param lease the default lease
     */
    public void setLease(Duration lease) {
        this.lease = lease;
    }

    /**
     * The default record lifetime.
     *
     * @return the TTL
     */
    public Duration getTtl() {
        return ttl;
    }

    /**
     * Sets {@code idem.ttl}.
     *
     * @param ttl the default record lifetime
     */
    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    /**
     * How long duplicates wait for an in-progress original.
     *
     * @return the wait, or null to fail fast
     */
    public Duration getInProgressWait() {
        return inProgressWait;
    }

    /**
     * Sets {@code idem.in-progress-wait}.
     *
     * @param inProgressWait the wait, or null to fail fast
     */
    public void setInProgressWait(Duration inProgressWait) {
        this.inProgressWait = inProgressWait;
    }

    /**
     * The near-cache size.
     *
     * @return entries, 0 when off
     */
    public int getNearCache() {
        return nearCache;
    }

    /**
     * Sets {@code idem.near-cache}.
     *
     * @param nearCache entries, 0 for off
     */
    public void setNearCache(int nearCache) {
        this.nearCache = nearCache;
    }

    /**
     * The largest request fingerprinted.
     *
     * @return bytes
     */
    public int getMaxRequestBytes() {
        return maxRequestBytes;
    }

    /**
     * Sets {@code idem.max-request-bytes}.
     *
     * @param maxRequestBytes bytes
     */
    public void setMaxRequestBytes(int maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }

    /**
     * The bound on asynchronous calls in flight.
     *
     * @return the bound, or null for the engine's default
     */
    public Integer getMaxAsyncCalls() {
        return maxAsyncCalls;
    }

    /**
     * Sets {@code idem.max-async-calls}.
     *
     * @param maxAsyncCalls at least 1
     */
    public void setMaxAsyncCalls(Integer maxAsyncCalls) {
        this.maxAsyncCalls = maxAsyncCalls;
    }

    /**
     * How long pending asynchronous work keeps its lease.
     *
     * @return the duration, or null for the engine's default
     */
    public Duration getMaxPendingWork() {
        return maxPendingWork;
    }

    /**
     * Sets {@code idem.max-pending-work}.
     *
     * @param maxPendingWork a positive duration
     */
    public void setMaxPendingWork(Duration maxPendingWork) {
        this.maxPendingWork = maxPendingWork;
    }

    /**
     * Store settings.
     *
     * @return {@code idem.store.*}
     */
    public Store getStore() {
        return store;
    }

    /**
     * Servlet filter settings.
     *
     * @return {@code idem.http.*}
     */
    public Http getHttp() {
        return http;
    }

    /**
     * {@code @Idempotent} settings.
     *
     * @return {@code idem.aop.*}
     */
    public Aop getAop() {
        return aop;
    }

    /**
     * Purge settings.
     *
     * @return {@code idem.purge.*}
     */
    public Purge getPurge() {
        return purge;
    }

    /**
     * Micrometer settings.
     *
     * @return {@code idem.metrics.*}
     */
    public Metrics getMetrics() {
        return metrics;
    }

    /**
     * OpenTelemetry settings.
     *
     * @return {@code idem.tracing.*}
     */
    public Tracing getTracing() {
        return tracing;
    }

    /** Which store is used, and its settings. */
    public static class Store {
        /**
         * Which store: auto (the application's DataSource, else its Redis client, else its
         * DynamoDbClient, else memory), memory, jdbc, redis or dynamodb.
         */
        private StoreKind kind = StoreKind.AUTO;
        private final Jdbc jdbc = new Jdbc();
        private final Redis redis = new Redis();
        private final Dynamodb dynamodb = new Dynamodb();

        /**
         * The store kind.
         *
         * @return the kind
         */
        public StoreKind getKind() {
            return kind;
        }

        /**
         * Sets {@code idem.store.kind}.
         *
         * @param kind the kind
         */
        public void setKind(StoreKind kind) {
            this.kind = kind;
        }

        /**
         * JDBC settings.
         *
         * @return {@code idem.store.jdbc.*}
         */
        public Jdbc getJdbc() {
            return jdbc;
        }

        /**
         * Redis settings.
         *
         * @return {@code idem.store.redis.*}
         */
        public Redis getRedis() {
            return redis;
        }

        /**
         * DynamoDB settings.
         *
         * @return {@code idem.store.dynamodb.*}
         */
        public Dynamodb getDynamodb() {
            return dynamodb;
        }
    }

    /** The store kinds. */
    public enum StoreKind {
        /** Pick from the application's beans. */
        AUTO,
        /** The in-process memory store (single node only). */
        MEMORY,
        /** The application's DataSource. */
        JDBC,
        /** The application's Redis client: Spring Data Redis, Lettuce, Jedis or a RedisScriptClient. */
        REDIS,
        /** The application's DynamoDbClient. */
        DYNAMODB
    }

    /** {@code idem.store.jdbc.*}. */
    public static class Jdbc {
        /** The record table. */
        private String table = "idem_record";
        /** The schema (or MySQL database) of the table; default: the connection's. */
        private String schema;
        /** postgresql, mysql or h2; detected from the connection when unset. */
        private String dialect;
        /** Whether to create (or upgrade) the table at startup. */
        private boolean createTable;
        /** The timeout of each statement; the store's default (10 s) when unset. */
        private Duration queryTimeout;
        /** The largest outcome stored, in bytes; the store's default when unset. */
        private Integer maxOutcomeBytes;

        /**
         * The statement timeout.
         *
         * @return the timeout, or null for the store's default
         */
        public Duration getQueryTimeout() {
            return queryTimeout;
        }

        /**
         * Sets {@code idem.store.jdbc.query-timeout}.
         *
         * @param queryTimeout the statement timeout
         */
        public void setQueryTimeout(Duration queryTimeout) {
            this.queryTimeout = queryTimeout;
        }

        /**
         * The largest outcome.
         *
         * @return bytes, or null for the store's default
         */
        public Integer getMaxOutcomeBytes() {
            return maxOutcomeBytes;
        }

        /**
         * Sets {@code idem.store.jdbc.max-outcome-bytes}.
         *
         * @param maxOutcomeBytes bytes
         */
        public void setMaxOutcomeBytes(Integer maxOutcomeBytes) {
            this.maxOutcomeBytes = maxOutcomeBytes;
        }

        /**
         * The table.
         *
         * @return the table name
         */
        public String getTable() {
            return table;
        }

        /**
         * Sets {@code idem.store.jdbc.table}.
         *
         * @param table the table name
         */
        public void setTable(String table) {
            this.table = table;
        }

        /**
         * The schema.
         *
         * @return the schema, or null for the connection's
         */
        public String getSchema() {
            return schema;
        }

        /**
         * Sets {@code idem.store.jdbc.schema}.
         *
         * @param schema the schema
         */
        public void setSchema(String schema) {
            this.schema = schema;
        }

        /**
         * The dialect.
         *
         * @return the dialect name, or null to detect it
         */
        public String getDialect() {
            return dialect;
        }

        /**
         * Sets {@code idem.store.jdbc.dialect}.
         *
         * @param dialect postgresql, mysql or h2
         */
        public void setDialect(String dialect) {
            this.dialect = dialect;
        }

        /**
         * Whether the table is created at startup.
         *
         * @return true to create it
         */
        public boolean isCreateTable() {
            return createTable;
        }

        /**
         * Sets {@code idem.store.jdbc.create-table}.
         *
         * @param createTable true to create the table if missing
         */
        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }

    /** {@code idem.store.redis.*}. */
    public static class Redis {
        /** The prefix of every key the store writes. */
        private String prefix = "idem:";
        /** The largest outcome stored, in bytes; the store's default when unset. */
        private Integer maxOutcomeBytes;

        /**
         * The largest outcome.
         *
         * @return bytes, or null for the store's default
         */
        public Integer getMaxOutcomeBytes() {
            return maxOutcomeBytes;
        }

        /**
         * Sets {@code idem.store.redis.max-outcome-bytes}.
         *
         * @param maxOutcomeBytes bytes
         */
        public void setMaxOutcomeBytes(Integer maxOutcomeBytes) {
            this.maxOutcomeBytes = maxOutcomeBytes;
        }

        /**
         * The key prefix.
         *
         * @return the prefix
         */
        public String getPrefix() {
            return prefix;
        }

        /**
         * Sets {@code idem.store.redis.prefix}.
         *
         * @param prefix the key prefix
         */
        public void setPrefix(String prefix) {
            this.prefix = prefix;
        }
    }

    /** {@code idem.store.dynamodb.*}. */
    public static class Dynamodb {
        /** The table. */
        private String table = "idem_record";
        /** The largest outcome stored, in bytes; the store's default (below the 400 KB item limit) when unset. */
        private Integer maxOutcomeBytes;

        /**
         * The largest outcome.
         *
         * @return bytes, or null for the store's default
         */
        public Integer getMaxOutcomeBytes() {
            return maxOutcomeBytes;
        }

        /**
         * Sets {@code idem.store.dynamodb.max-outcome-bytes}.
         *
         * @param maxOutcomeBytes bytes
         */
        public void setMaxOutcomeBytes(Integer maxOutcomeBytes) {
            this.maxOutcomeBytes = maxOutcomeBytes;
        }
        /** Whether to create the table at startup if it does not exist. */
        private boolean createTable;

        /**
         * The table.
         *
         * @return the table name
         */
        public String getTable() {
            return table;
        }

        /**
         * Sets {@code idem.store.dynamodb.table}.
         *
         * @param table the table name
         */
        public void setTable(String table) {
            this.table = table;
        }

        /**
         * Whether the table is created at startup.
         *
         * @return true to create it
         */
        public boolean isCreateTable() {
            return createTable;
        }

        /**
         * Sets {@code idem.store.dynamodb.create-table}.
         *
         * @param createTable true to create the table if missing
         */
        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }

    /** {@code idem.http.*}: the servlet filter. */
    public static class Http {
        /**
         * Spring path patterns of the routes the filter covers (for example /charges,
         * /orders/{id}/confirm, /orders/**); checked at startup. The filter is on only when at
         * least one is set. Metrics and spans are named after the route Spring MVC matched,
         * records are keyed by the request's path.
         */
        private List<String> routes = new ArrayList<>();
        /**
         * Whether every covered route runs its handler in the JDBC transactional mode: in a
         * transaction on the shared DataSource that also completes the record.
         */
        private boolean transactional;
        /**
         * Spring path patterns of the covered routes that run their handler in the JDBC
         * transactional mode (when idem.http.transactional is false).
         */
        private List<String> transactionalRoutes = new ArrayList<>();
        /** The covered methods. */
        private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));
        /** Whether a covered request without an Idempotency-Key is refused with 400. */
        private boolean keyRequired = true;
        /**
         * The filter's order; by default just after Spring Security's filter chain, so the
         * authenticated principal is known.
         */
        private int order = SECURITY_FILTER_ORDER + 10;
        /**
         * A header carrying an API key to scope records by (hashed) when no principal is
         * authenticated; an authenticated principal always wins. It is only as good as
         * whatever checks that header before the filter or behind it.
         */
        private String principalHeader;

        /**
         * The covered URL patterns.
         *
         * @return the patterns
         */
        public List<String> getRoutes() {
            return routes;
        }

        /**
         * Sets {@code idem.http.routes}.
         *
         * @param routes Spring path patterns
         */
        public void setRoutes(List<String> routes) {
            this.routes = routes;
        }

        /**
         * Whether every covered route is transactional.
         *
         * @return true if every covered handler runs in the transactional mode
         */
        public boolean isTransactional() {
            return transactional;
        }

        /**
         * Sets {@code idem.http.transactional}.
         *
         * @param transactional whether every covered route is transactional
         */
        public void setTransactional(boolean transactional) {
            this.transactional = transactional;
        }

        /**
         * The transactional routes.
         *
         * @return Spring path patterns
         */
        public List<String> getTransactionalRoutes() {
            return transactionalRoutes;
        }

        /**
         * Sets {@code idem.http.transactional-routes}.
         *
         * @param transactionalRoutes Spring path patterns
         */
        public void setTransactionalRoutes(List<String> transactionalRoutes) {
            this.transactionalRoutes = transactionalRoutes;
        }

        /**
         * The covered methods.
         *
         * @return the methods
         */
        public List<String> getMethods() {
            return methods;
        }

        /**
         * Sets {@code idem.http.methods}.
         *
         * @param methods the methods
         */
        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        /**
         * Whether a key is required.
         *
         * @return true if a request without one gets 400
         */
        public boolean isKeyRequired() {
            return keyRequired;
        }

        /**
         * Sets {@code idem.http.key-required}.
         *
         * @param keyRequired whether a key is required
         */
        public void setKeyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
        }

        /**
         * The filter order.
         *
         * @return the order
         */
        public int getOrder() {
            return order;
        }

        /**
         * Sets {@code idem.http.order}.
         *
         * @param order the filter order
         */
        public void setOrder(int order) {
            this.order = order;
        }

        /**
         * The API-key header to scope by.
         *
         * @return the header name, or null for none
         */
        public String getPrincipalHeader() {
            return principalHeader;
        }

        /**
         * Sets {@code idem.http.principal-header}.
         *
         * @param principalHeader the header name
         */
        public void setPrincipalHeader(String principalHeader) {
            this.principalHeader = principalHeader;
        }
    }

    /** Spring Security's default filter-chain order (SecurityProperties.DEFAULT_FILTER_ORDER). */
    static final int SECURITY_FILTER_ORDER = -100;

    /** {@code idem.aop.*}: {@code @Idempotent} methods. */
    public static class Aop {
        /**
         * The scope of @Idempotent calls that name none and have no principal (no authenticated
         * user, no principal header). Unset: such calls are refused (401), since all of them
         * would share one key space.
         */
        private String defaultScope;

        /**
         * The fallback scope.
         *
         * @return the scope, or null to refuse calls without a principal
         */
        public String getDefaultScope() {
            return defaultScope;
        }

        /**
         * Sets {@code idem.aop.default-scope}.
         *
         * @param defaultScope the fallback scope
         */
        public void setDefaultScope(String defaultScope) {
            this.defaultScope = defaultScope;
        }
    }

    /** {@code idem.purge.*}: removal of expired records. */
    public static class Purge {
        /** Whether expired records are purged on a schedule (stores with native expiry skip it). */
        private boolean enabled = true;
        /** Time between purge runs. */
        private Duration interval = Duration.ofMinutes(5);
        /** The most records one run removes. */
        private int batchSize = 1000;

        /**
         * Whether the purge runs.
         *
         * @return true if scheduled
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code idem.purge.enabled}.
         *
         * @param enabled whether the purge runs
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * The interval.
         *
         * @return time between runs
         */
        public Duration getInterval() {
            return interval;
        }

        /**
         * Sets {@code idem.purge.interval}.
         *
         * @param interval time between runs
         */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /**
         * The batch size.
         *
         * @return records per run
         */
        public int getBatchSize() {
            return batchSize;
        }

        /**
         * Sets {@code idem.purge.batch-size}.
         *
         * @param batchSize records per run
         */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** {@code idem.metrics.*}. */
    public static class Metrics {
        /**
         * Whether idem is instrumented: idem.execution and idem.store observations through the
         * application's ObservationRegistry, or (without one) meters in its MeterRegistry.
         */
        private boolean enabled = true;
        /** Whether meters are tagged with the key's scope (tenant); beware of cardinality. */
        private boolean tagScope;

        /**
         * Whether metrics are bound.
         *
         * @return true if bound
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code idem.metrics.enabled}.
         *
         * @param enabled whether metrics are bound
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Whether meters carry the scope.
         *
         * @return true if tagged
         */
        public boolean isTagScope() {
            return tagScope;
        }

        /**
         * Sets {@code idem.metrics.tag-scope}.
         *
         * @param tagScope whether meters carry the scope
         */
        public void setTagScope(boolean tagScope) {
            this.tagScope = tagScope;
        }
    }

    /** {@code idem.tracing.*}. */
    public static class Tracing {
        /**
         * Whether outcomes and store spans go to the application's OpenTelemetry, in an
         * application without Micrometer's ObservationRegistry (with one, observations carry
         * the traces).
         */
        private boolean enabled = true;

        /**
         * Whether tracing is on.
         *
         * @return true if on
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code idem.tracing.enabled}.
         *
         * @param enabled whether tracing is on
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
