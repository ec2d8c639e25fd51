package dev.idem.spring.boot;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code idem.*} configuration properties of the engine, the HTTP filter, {@code @Idempotent}
 * methods, the purge and observability; bound through the constructor. The settings of each store
 * sit beside its configuration ({@link JdbcStoreProperties}, {@link RedisStoreProperties},
 * {@link DynamoDbStoreProperties}) and follow the scheme every {@link dev.idem.api.store.StoreProvider}
 * reads, {@code idem.store.<kind>.<kebab-name>}, so one name means the same thing with or
 * without Spring.
 *
 * @param enabled Whether idem is auto-configured at all.
 * @param lease How long a claim is protected before a duplicate may take it over.
 * @param ttl How long records live; an expired record counts as absent.
 * @param inProgressWait How long a duplicate waits for an in-progress original before failing
 *     with 409; unset means fail at once.
 * @param nearCache Size of the process-local cache of completed records; 0 turns it off.
 * @param maxRequestBytes The largest request fingerprinted, in bytes: the engine's limit, and the
 *     largest body the Idempotency-Key filter accepts on a covered route (larger: 413, the handler
 *     never runs).
 * @param maxAsyncCalls The most asynchronous calls in flight at once (the WebFlux filter, @Idempotent
 *     methods returning a Mono or a CompletionStage, executeAsync); a call beyond it is refused at
 *     once and runs nothing (HTTP 503 too-busy). Unset: the engine's default, 10000.
 * @param maxPendingWork How long the lease of asynchronous work that is still pending is kept
 *     alive; after it the lease lapses and a duplicate may take the key over. Unset: the
 *     engine's default, 5 minutes.
 * @param store Which store is used.
 * @param http The Idempotency-Key filter.
 * @param aop {@code @Idempotent} methods.
 * @param purge Removal of expired records.
 * @param metrics Micrometer.
 * @param tracing OpenTelemetry.
 */
@ConfigurationProperties(prefix = "idem")
record IdemProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("30s") Duration lease,
        @DefaultValue("24h") Duration ttl,
        @Nullable Duration inProgressWait,
        int nearCache,
        @DefaultValue("1048576") int maxRequestBytes,
        @Nullable Integer maxAsyncCalls,
        @Nullable Duration maxPendingWork,
        @DefaultValue Store store,
        @DefaultValue Http http,
        @DefaultValue Aop aop,
        @DefaultValue Purge purge,
        @DefaultValue Metrics metrics,
        @DefaultValue Tracing tracing) {

    /** Spring Security's default filter-chain order (SecurityProperties.DEFAULT_FILTER_ORDER). */
    static final int SECURITY_FILTER_ORDER = -100;

    /**
     * {@code idem.store.*}: which store is used; each store's own settings are its
     * {@code *StoreProperties}.
     *
     * @param kind Which store: auto (the application's DataSource, else its Redis client, else its
     *     DynamoDbClient, else memory), memory, jdbc, redis or dynamodb.
     */
    record Store(@DefaultValue("auto") StoreKind kind) {
    }

    /** The store kinds. */
    enum StoreKind {
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

    /**
     * {@code idem.http.*}: the Idempotency-Key filter.
     *
     * @param routes Spring path patterns of the routes the filter covers (for example /charges,
     *     /orders/{id}/confirm, /orders/**); checked at startup. The filter is on only when at
     *     least one is set. Metrics and spans are named after the route Spring MVC matched,
     *     records are keyed by the request's path.
     * @param transactional Whether every covered route runs its handler in the JDBC transactional
     *     mode: in a transaction on the shared DataSource that also completes the record.
     * @param transactionalRoutes Spring path patterns of the covered routes that run their handler
     *     in the JDBC transactional mode (when idem.http.transactional is false).
     * @param methods The covered methods.
     * @param keyRequired Whether a covered request without an Idempotency-Key is refused with 400.
     * @param order The filter's order; by default just after Spring Security's filter chain, so the
     *     authenticated principal is known.
     * @param principalHeader A header carrying an API key to scope records by (hashed) when no
     *     principal is authenticated; an authenticated principal always wins. It is only as good as
     *     whatever checks that header before the filter or behind it.
     */
    record Http(
            @Nullable List<String> routes,
            boolean transactional,
            @Nullable List<String> transactionalRoutes,
            @DefaultValue({"POST", "PATCH"}) List<String> methods,
            @DefaultValue("true") boolean keyRequired,
            @DefaultValue("" + (SECURITY_FILTER_ORDER + 10)) int order,
            @Nullable String principalHeader) {

        Http {
            // Unset lists bind as null; callers read them as lists.
            routes = routes == null ? List.of() : List.copyOf(routes);
            transactionalRoutes = transactionalRoutes == null ? List.of() : List.copyOf(transactionalRoutes);
        }

        @Override
        public List<String> routes() {
            return routes;
        }

        @Override
        public List<String> transactionalRoutes() {
            return transactionalRoutes;
        }
    }

    /**
     * {@code idem.aop.*}: {@code @Idempotent} methods.
     *
     * @param defaultScope The scope of @Idempotent calls that name none and have no principal (no
     *     authenticated user, no principal header). Unset: such calls are refused (401), since all
     *     of them would share one key space.
     */
    record Aop(@Nullable String defaultScope) {
    }

    /**
     * {@code idem.purge.*}: removal of expired records.
     *
     * @param enabled Whether expired records are purged on a schedule (stores with native expiry
     *     skip it).
     * @param interval Time between purge runs.
     * @param batchSize The most records one run removes.
     */
    record Purge(@DefaultValue("true") boolean enabled, @DefaultValue("5m") Duration interval,
            @DefaultValue("1000") int batchSize) {
    }

    /**
     * {@code idem.metrics.*}.
     *
     * @param enabled Whether idem is instrumented: idem.execution and idem.store observations
     *     through the application's ObservationRegistry, or (without one) meters in its
     *     MeterRegistry.
     * @param tagScope Whether meters are tagged with the key's scope (tenant); beware of
     *     cardinality.
     */
    record Metrics(@DefaultValue("true") boolean enabled, boolean tagScope) {
    }

    /**
     * {@code idem.tracing.*}.
     *
     * @param enabled Whether outcomes and store spans go to the application's OpenTelemetry, in an
     *     application without Micrometer's ObservationRegistry (with one, observations carry the
     *     traces).
     */
    record Tracing(@DefaultValue("true") boolean enabled) {
    }
}
