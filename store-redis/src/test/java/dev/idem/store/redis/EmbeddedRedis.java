package dev.idem.store.redis;

import dev.idem.test.redis.EmbeddedRedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.embedded.RedisServer;

/**
 * The servers the Redis tests use, started by {@link EmbeddedRedisServer}: the JVM's shared
 * standalone server, a three-master cluster shared the same way (slots assigned and nodes joined
 * here, through Jedis), and servers of a test's own. Public, in this module's test jar, for
 * store-hybrid's tests.
 */
public final class EmbeddedRedis {
    /** The loopback address every server binds to. */
    public static final String HOST = EmbeddedRedisServer.HOST;
    private static final Duration CLUSTER_READY = Duration.ofSeconds(30);

    private EmbeddedRedis() {
    }

    /** Short timeouts, so a dead server shows up as an error within about a second. */
    public static JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(2000).build();
    }

    /** A Jedis client for one server, of the kind the Jedis on the class path has. */
    static UnifiedJedis client(int port) {
        return JedisClients.standalone(new HostAndPort(HOST, port), clientConfig());
    }

    /** A Jedis cluster client, of the kind the Jedis on the class path has. */
    public static UnifiedJedis clusterClient(List<Integer> ports) {
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        ports.forEach(p -> seeds.add(new HostAndPort(HOST, p)));
        return JedisClients.cluster(seeds, clientConfig());
    }

    /** A plain connection for what the tests do besides the store (SCRIPT FLUSH, PTTL, HSET, INFO). */
    static Jedis admin(int port) {
        return new Jedis(new HostAndPort(HOST, port), clientConfig());
    }

    public static int freePort() {
        return EmbeddedRedisServer.freePort();
    }

    /**
     * A started server on {@code port}. {@code forceStop} makes {@link RedisServer#stop()}
     * a SIGKILL, the closest thing to a crash.
     */
    public static RedisServer server(int port, boolean cluster, boolean forceStop, String... extraSettings) {
        List<String> settings = new ArrayList<>(List.of(extraSettings));
        if (cluster) {
            settings.add("cluster-enabled yes");
            settings.add("cluster-config-file nodes-" + port + ".conf");
            settings.add("cluster-node-timeout 5000");
        }
        return EmbeddedRedisServer.start(port, forceStop, settings.toArray(new String[0]));
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
        static final int PORT = EmbeddedRedisServer.shared();
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

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
