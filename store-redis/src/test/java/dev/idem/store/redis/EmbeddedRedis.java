package dev.idem.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.embedded.RedisServer;

/**
 * Real redis-server processes for the tests, from the binaries embedded-redis ships: no
 * persistence, loopback only, one temp dir per server. Servers shared by many test
 * classes are started once per JVM (lazy holders) and killed by embedded-redis' own
 * shutdown hook. Public, in this module's test jar, for store-hybrid's tests.
 */
public final class EmbeddedRedis {
    /** The loopback address every server binds to. */
    public static final String HOST = "127.0.0.1";
    private static final Duration CLUSTER_READY = Duration.ofSeconds(30);

    private EmbeddedRedis() {
    }

    /** Short timeouts, so a dead server shows up as an error within about a second. */
    public static JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(2000).build();
    }

    static RedisClient client(int port) {
        return RedisClient.builder().hostAndPort(HOST, port).clientConfig(clientConfig()).build();
    }

    public static RedisClusterClient clusterClient(List<Integer> ports) {
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        ports.forEach(p -> seeds.add(new HostAndPort(HOST, p)));
        return RedisClusterClient.builder().nodes(seeds).clientConfig(clientConfig()).maxAttempts(3).build();
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A started server on {@code port}. {@code forceStop} makes {@link RedisServer#stop()}
     * a SIGKILL, the closest thing to a crash.
     */
    public static RedisServer server(int port, boolean cluster, boolean forceStop, String... extraSettings) {
        try {
            Path dir = Files.createTempDirectory("idem-redis-" + port + "-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteRecursively(dir), "idem-redis-cleanup"));
            var b = RedisServer.newRedisServer().port(port).bind(HOST)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("dir " + dir.toAbsolutePath())
                    .onShutdownForceStop(forceStop);
            if (cluster) {
                b.setting("cluster-enabled yes")
                        .setting("cluster-config-file " + dir.resolve("nodes.conf").toAbsolutePath())
                        .setting("cluster-node-timeout 5000");
            }
            for (String s : extraSettings) {
                b.setting(s);
            }
            RedisServer server = b.build();
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server on port " + port, e);
        }
    }

    /** The server shared by the standalone suites. */
    static int standalonePort() {
        return Standalone.PORT;
    }

    /** The ports of the shared three-master cluster. */
    static List<Integer> clusterPorts() {
        return Cluster.PORTS;
    }

    private static final class Standalone {
        static final int PORT = freePort();

        static {
            server(PORT, false, true);
        }
    }

    private static final class Cluster {
        static final List<Integer> PORTS = startCluster(3);
    }

    /**
     * Starts {@code masters} cluster-enabled servers, splits the 16384 slots between them,
     * introduces them to each other and waits (bounded) until every node reports
     * {@code cluster_state:ok}.
     */
    public static List<Integer> startCluster(int masters) {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < masters; i++) {
            int port = freePort();
            server(port, true, true);
            ports.add(port);
        }
        for (int i = 0; i < masters; i++) {
            int from = firstSlot(i, masters);
            int to = firstSlot(i + 1, masters);
            int[] mine = new int[to - from];
            for (int s = from; s < to; s++) {
                mine[s - from] = s;
            }
            try (Jedis j = new Jedis(new HostAndPort(HOST, ports.get(i)), clientConfig())) {
                j.clusterAddSlots(mine);
            }
        }
        try (Jedis first = new Jedis(new HostAndPort(HOST, ports.get(0)), clientConfig())) {
            for (int i = 1; i < masters; i++) {
                first.clusterMeet(HOST, ports.get(i));
            }
        }
        long deadline = System.nanoTime() + CLUSTER_READY.toNanos();
        for (int port : ports) {
            try (Jedis j = new Jedis(new HostAndPort(HOST, port), clientConfig())) {
                while (true) {
                    String info = j.clusterInfo();
                    if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + masters)) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("cluster not ready within " + CLUSTER_READY + ": " + info);
                    }
                    sleep(50);
                }
            }
        }
        return List.copyOf(ports);
    }

    private static int firstSlot(int master, int masters) {
        return 16384 * master / masters;
    }

    /** Which of {@link #startCluster}'s masters (by index) serves {@code slot}. */
    static int masterOfSlot(int slot, int masters) {
        for (int i = masters - 1; i >= 0; i--) {
            if (slot >= firstSlot(i, masters)) {
                return i;
            }
        }
        throw new IllegalArgumentException("slot " + slot);
    }

    private static void deleteRecursively(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: it is a temp dir.
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
