package dev.idem.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code idem.*} properties of application.properties: the names the Spring Boot starter
 * binds and every {@code StoreProvider} reads ({@code idem.store.<kind>.<property>}), so one name
 * means the same thing everywhere. Read at run time.
 */
@ConfigMapping(prefix = "idem")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface IdemConfig {
    /**
     * How long a claim is protected before a duplicate may take it over; longer than the
     * slowest handler.
     *
     * @return the lease
     */
    @WithDefault("30s")
    Duration lease();

    /**
     * How long records live; an expired record counts as absent.
     *
     * @return the time to live
     */
    @WithDefault("24h")
    Duration ttl();

    /**
     * How long a duplicate waits for an in-progress original before it gets 409; unset: at once.
     *
     * @return the wait
     */
    Optional<Duration> inProgressWait();

    /**
     * Size of the process-local cache of completed records; 0 turns it off.
     *
     * @return entries
     */
    @WithDefault("0")
    int nearCache();

    /**
     * The largest request fingerprinted, in bytes: the engine's limit, and the largest body a
     * covered route accepts (larger: 413, the handler never runs).
     *
     * @return bytes
     */
    @WithDefault("1048576")
    int maxRequestBytes();

    /**
     * Which store, and its settings.
     *
     * @return {@code idem.store.*}
     */
    Store store();

    /**
     * The Idempotency-Key filters.
     *
     * @return {@code idem.http.*}
     */
    Http http();

    /**
     * Purging expired records, for stores without expiry of their own (JDBC).
     *
     * @return {@code idem.purge.*}
     */
    Purge purge();

    /**
     * Micrometer meters.
     *
     * @return {@code idem.metrics.*}
     */
    Metrics metrics();

    /** The store kinds. */
    enum StoreKind {
        /** The application's datasource, else its Redis, else its DynamoDB client, else memory. */
        AUTO,
        /** In-process memory: one node only, lost on restart. */
        MEMORY,
        /** The application's datasource. */
        JDBC,
        /** The application's Redis (a Jedis {@code UnifiedJedis} bean, {@code idem.store.redis.uri} or {@code quarkus.redis.hosts}). */
        REDIS,
        /** The application's {@code DynamoDbClient} bean. */
        DYNAMODB
    }

    /** {@code idem.store.*}. */
    interface Store {
        /**
         * Which store: {@code auto} (the application's datasource, else its Redis, else its
         * DynamoDB client, else memory), {@code memory}, {@code jdbc}, {@code redis} or {@code dynamodb}.
         *
         * @return the kind
         */
        @WithDefault("auto")
        StoreKind kind();

        /**
         * JDBC settings.
         *
         * @return {@code idem.store.jdbc.*}
         */
        Jdbc jdbc();

        /**
         * Redis settings.
         *
         * @return {@code idem.store.redis.*}
         */
        Redis redis();

        /**
         * DynamoDB settings.
         *
         * @return {@code idem.store.dynamodb.*}
         */
        Dynamodb dynamodb();
    }

    /** {@code idem.store.jdbc.*}: the store over an Agroal datasource of the application. */
    interface Jdbc {
        /**
         * The datasource's name; unset: the default datasource.
         *
         * @return the name
         */
        Optional<String> datasource();

        /**
         * The record table.
         *
         * @return the table
         */
        @WithDefault("idem_record")
        String table();

        /**
         * The schema (or MySQL database) of the table; unset: the connection's.
         *
         * @return the schema
         */
        Optional<String> schema();

        /**
         * {@code postgresql}, {@code mysql} or {@code h2}; unset: detected from the connection.
         *
         * @return the dialect
         */
        Optional<String> dialect();

        /**
         * Whether to create (or upgrade) the table at startup.
         *
         * @return true to create it
         */
        @WithDefault("false")
        boolean createTable();

        /**
         * The timeout of each statement; unset: the store's default (10 s).
         *
         * @return the timeout
         */
        Optional<Duration> queryTimeout();

        /**
         * The largest outcome stored, in bytes; unset: the store's default.
         *
         * @return bytes
         */
        OptionalInt maxOutcomeBytes();
    }

    /**
     * {@code idem.store.redis.*}: read as the Redis store's {@code StoreProvider} reads them when
     * the application has no Jedis client of its own.
     */
    interface Redis {
        /**
         * A standalone server, such as {@code redis://host:6379/0}; unset: the application's
         * {@code quarkus.redis.hosts}.
         *
         * @return the URI
         */
        Optional<String> uri();

        /**
         * Comma-separated {@code host:port} seed nodes of a cluster, instead of {@code uri}.
         *
         * @return the seeds
         */
        Optional<String> cluster();

        /**
         * The prefix of every key the store writes.
         *
         * @return the prefix
         */
        @WithDefault("idem:")
        String prefix();

        /**
         * Connect and socket timeout of the client idem creates; unset: 2 s.
         *
         * @return the timeout
         */
        Optional<Duration> timeout();

        /**
         * The largest outcome stored, in bytes; unset: the store's default.
         *
         * @return bytes
         */
        OptionalInt maxOutcomeBytes();
    }

    /** {@code idem.store.dynamodb.*}: the store over the application's {@code DynamoDbClient} bean. */
    interface Dynamodb {
        /**
         * The table.
         *
         * @return the table
         */
        @WithDefault("idem_record")
        String table();

        /**
         * Whether to create the table at startup.
         *
         * @return true to create it
         */
        @WithDefault("false")
        boolean createTable();

        /**
         * The largest outcome stored, in bytes; unset: the store's default.
         *
         * @return bytes
         */
        OptionalInt maxOutcomeBytes();
    }

    /** {@code idem.http.*}: which Jakarta REST routes are covered, and how. */
    interface Http {
        /**
         * Whether the Idempotency-Key filters act at all.
         *
         * @return true to cover routes
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * Resource method templates covered besides the {@code @Idempotent} ones, as the class's
         * and method's {@code @Path} joined: {@code /charges}, {@code /orders/{id}/confirm}.
         *
         * @return the templates
         */
        Optional<List<String>> routes();

        /**
         * The covered HTTP methods.
         *
         * @return the methods
         */
        @WithDefault("POST,PATCH")
        List<String> methods();

        /**
         * Whether a covered request without an Idempotency-Key is refused with 400 (else passed through).
         *
         * @return true to require keys
         */
        @WithDefault("true")
        boolean keyRequired();

        /**
         * Whether covered resource methods of the default configuration run in the JTA
         * transactional mode ({@code JtaHandlerExecution}): each in a JTA transaction that also
         * stores its response, so what it writes through the JDBC store's Agroal datasource in that
         * transaction ({@code @Transactional} beans that join it, the injected datasource,
         * Hibernate, or the handle of the {@code TransactionalContext} in the request property
         * {@code HttpIdempotency.CONTEXT_ATTRIBUTE}) and the stored response commit together or not
         * at all. Startup fails when the store is not the JDBC store over the datasource
         * {@code idem.store.jdbc.datasource} names, when that datasource's JTA integration is off,
         * and when {@code idem.http.routes} is set.
         *
         * @return true for the transactional mode
         */
        @WithDefault("false")
        boolean transactional();

        /**
         * A header carrying an API key to scope records by (hashed) when no principal is
         * authenticated; an authenticated principal always wins. It is only as good as whatever
         * checks that header before the handler.
         *
         * @return the header's name
         */
        Optional<String> principalHeader();

        /**
         * The response headers stored and replayed; unset: Content-Type, Content-Language,
         * Content-Encoding, Content-Disposition, Location, ETag, Last-Modified, Cache-Control,
         * Link, Vary.
         *
         * @return the header names
         */
        Optional<List<String>> storedHeaders();

        /**
         * JSON Pointers (RFC 6901) of body fields left out of the fingerprint.
         *
         * @return the pointers
         */
        Optional<List<String>> excludeFromFingerprint();

        /**
         * The {@code Retry-After} of a 503 sent when the store is unavailable.
         *
         * @return the delay
         */
        @WithDefault("1s")
        Duration storeRetryAfter();
    }

    /** {@code idem.purge.*}. */
    interface Purge {
        /**
         * Whether expired records are deleted in the background (only for stores that do not expire them themselves).
         *
         * @return true to purge
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * The time between purges.
         *
         * @return the interval
         */
        @WithDefault("5m")
        Duration interval();

        /**
         * The most records deleted per purge.
         *
         * @return the batch size
         */
        @WithDefault("1000")
        int batchSize();
    }

    /** {@code idem.metrics.*}. */
    interface Metrics {
        /**
         * Whether engine events are counted and timed in the application's MeterRegistry (with quarkus-micrometer).
         *
         * @return true to record meters
         */
        @WithDefault("true")
        boolean enabled();
    }
}
