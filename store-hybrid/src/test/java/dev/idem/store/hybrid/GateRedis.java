package dev.idem.store.hybrid;

import dev.idem.store.redis.EmbeddedRedis;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import dev.idem.testsupport.redis.EmbeddedRedisCluster;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.embedded.RedisServer;

/**
 * The gate's redis-server processes ({@link EmbeddedRedisServer}): the JVM's shared server, with
 * two Jedis clients and two Lettuce connections on it, the shared three-master Redis Cluster
 * ({@link EmbeddedRedisCluster}) with two Jedis clients (store-redis' {@link EmbeddedRedis}), and servers of a test's own (tests that kill or
 * pause Redis). The shared ones are made once per JVM, on first use.
 */
final class GateRedis {
    static final String HOST = EmbeddedRedisServer.HOST;

    private GateRedis() {
    }

    static JedisClientConfig clientConfig(int socketTimeoutMillis) {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(socketTimeoutMillis)
                .build();
    }

    static redis.clients.jedis.RedisClient client(int port, int socketTimeoutMillis) {
        return redis.clients.jedis.RedisClient.builder().hostAndPort(HOST, port)
                .clientConfig(clientConfig(socketTimeoutMillis)).build();
    }

    static int freePort() {
        return EmbeddedRedisServer.freePort();
    }

    /** A started server on {@code port} that {@link RedisServer#stop()} kills with SIGKILL (a crash). */
    static RedisServer start(int port) {
        return EmbeddedRedisServer.start(port, true);
    }

    /**
     * A gate through Lettuce on the shared server: a connection of the application's (String codec)
     * that the script client never closes.
     */
    static RedisScriptClient lettuce(int which) {
        return LettuceScriptClient.of(which == 0 ? Lettuce.A : Lettuce.B);
    }

    private static final class Lettuce {
        static final RedisClient CLIENT = RedisClient.create(RedisURI.builder().withHost(HOST)
                .withPort(Shared.PORT).withTimeout(Duration.ofSeconds(2)).build());
        static final StatefulRedisConnection<String, String> A = CLIENT.connect();
        static final StatefulRedisConnection<String, String> B = CLIENT.connect();
    }

    /** Two clients on the shared server (two "processes"), made once per JVM. */
    static final class Shared {
        static final int PORT = EmbeddedRedisServer.shared();
        static final redis.clients.jedis.RedisClient A = client(PORT, 2000);
        static final redis.clients.jedis.RedisClient B = client(PORT, 2000);

        private Shared() {
        }
    }

    /** Two clients on a shared three-master Redis Cluster, made once per JVM on first use. */
    static final class Cluster {
        static final List<Integer> PORTS = EmbeddedRedisCluster.shared().ports();
        static final UnifiedJedis A = EmbeddedRedis.clusterClient(PORTS);
        static final UnifiedJedis B = EmbeddedRedis.clusterClient(PORTS);

        private Cluster() {
        }
    }
}
