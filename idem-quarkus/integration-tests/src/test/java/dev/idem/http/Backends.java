package dev.idem.http;

import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import redis.embedded.RedisServer;

/**
 * The real backends the Quarkus tests run on, started by the tests themselves (no container):
 * PostgreSQL from zonky's binaries, Redis from embedded-redis's (both through idem-test-support).
 * Each profile starts one, points the application at it the way an application is configured
 * ({@code quarkus.datasource.*}, {@code quarkus.redis.hosts}), and picks the resource variant.
 */
final class Backends {
    private Backends() {
    }

    /** A real PostgreSQL as the application's default datasource; blocking endpoints. */
    public static final class PostgresProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idem.store.kind", "jdbc", "idem.store.jdbc.create-table", "true",
                    "contract.endpoints", "blocking");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Postgres.class));
        }
    }

    /**
     * The idem-quarkus README's application: its resource, its two properties, a real PostgreSQL
     * as the default datasource, and the configuration the extension builds (not the suite's).
     */
    public static final class ReadmeProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idem.store.jdbc.create-table", "true", "idem.http.principal-header", "X-Api-Key",
                    "contract.endpoints", "readme", "contract.extension-configuration", "true");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Postgres.class));
        }
    }

    /**
     * The extension's own JTA mode ({@code idem.http.transactional=true}) on its own
     * configuration, over a real PostgreSQL as the default datasource ({@link QuarkusJtaModeTest}).
     */
    public static final class JtaModeProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idem.store.kind", "jdbc", "idem.store.jdbc.create-table", "true",
                    "idem.http.transactional", "true", "idem.http.principal-header", "X-Api-Key",
                    "contract.endpoints", "jta-mode", "contract.extension-configuration", "true");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Postgres.class));
        }
    }

    /** A real Redis server as the one the application's Quarkus Redis client is configured for; reactive endpoints. */
    public static final class RedisProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("idem.store.kind", "redis", "contract.endpoints", "reactive");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Redis.class));
        }
    }

    /** Starts PostgreSQL and hands its URL to the default datasource. */
    public static final class Postgres implements QuarkusTestResourceLifecycleManager {
        private EmbeddedPostgres postgres;

        @Override
        public Map<String, String> start() {
            postgres = EmbeddedPostgresServer.start();
            return Map.of("quarkus.datasource.jdbc.url", postgres.getJdbcUrl("postgres", "postgres"),
                    "quarkus.datasource.username", "postgres", "quarkus.datasource.password", "postgres");
        }

        @Override
        public void stop() {
            try {
                postgres.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Starts redis-server on a free loopback port and names it as the application's Redis. */
    public static final class Redis implements QuarkusTestResourceLifecycleManager {
        private RedisServer server;

        @Override
        public Map<String, String> start() {
            int port = EmbeddedRedisServer.freePort();
            server = EmbeddedRedisServer.start(port, false);
            return Map.of("quarkus.redis.hosts", "redis://" + EmbeddedRedisServer.HOST + ":" + port);
        }

        @Override
        public void stop() {
            try {
                server.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
