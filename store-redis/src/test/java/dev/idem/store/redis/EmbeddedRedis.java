package dev.idem.store.redis;

import dev.idem.testsupport.redis.EmbeddedRedisCluster;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
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
 * The servers the Redis tests use, started by test-support's {@link EmbeddedRedisServer} and
 * {@link EmbeddedRedisCluster}: the JVM's shared standalone server, the shared three-master
 * cluster, and servers of a test's own; plus the Jedis clients the tests reach them with.
 * Public, in this module's test jar, for store-hybrid's tests.
 */
public final class EmbeddedRedis {
    /** The loopback address every server binds to. */
    public static final String HOST = EmbeddedRedisServer.HOST;

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
    public static RedisServer server(int port, boolean forceStop, String... extraSettings) {
        return EmbeddedRedisServer.start(port, forceStop, extraSettings);
    }

    /** The server shared by the standalone suites. */
    static int standalonePort() {
        return Standalone.PORT;
    }

    /** The ports of the shared three-master cluster. */
    static List<Integer> clusterPorts() {
        return EmbeddedRedisCluster.shared().ports();
    }

    private static final class Standalone {
        static final int PORT = EmbeddedRedisServer.shared();
    }

    /** Which of the shared cluster's masters (by index) serves {@code slot}. */
    static int masterOfSlot(int slot, int masters) {
        return EmbeddedRedisCluster.masterOfSlot(slot, masters);
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
