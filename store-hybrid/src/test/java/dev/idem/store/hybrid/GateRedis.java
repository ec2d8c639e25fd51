package dev.idem.store.hybrid;

import dev.idem.store.redis.EmbeddedRedis;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.embedded.RedisServer;

/**
 * Real redis-server processes for the gate (Redis 6.2), started by store-redis' {@link EmbeddedRedis}:
 * no persistence, loopback only. The shared server and cluster are started once per JVM and killed
 * by embedded-redis' shutdown hook; tests that kill or pause Redis start their own.
 */
final class GateRedis {
    static final String HOST = EmbeddedRedis.HOST;

    private GateRedis() {
    }

    static JedisClientConfig clientConfig(int socketTimeoutMillis) {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(socketTimeoutMillis)
                .build();
    }

    static RedisClient client(int port, int socketTimeoutMillis) {
        return RedisClient.builder().hostAndPort(HOST, port).clientConfig(clientConfig(socketTimeoutMillis)).build();
    }

    static int freePort() {
        return EmbeddedRedis.freePort();
    }

    /** A started server on {@code port} that {@link RedisServer#stop()} kills with SIGKILL (a crash). */
    static RedisServer start(int port) {
        return EmbeddedRedis.server(port, false, true);
    }

    /** Two clients on the shared server (two "processes"), made once per JVM. */
    static final class Shared {
        static final int PORT = freePort();
        static final RedisClient A;
        static final RedisClient B;

        static {
            start(PORT);
            A = client(PORT, 2000);
            B = client(PORT, 2000);
        }

        private Shared() {
        }
    }

    /** Two clients on a shared three-master Redis Cluster, made once per JVM on first use. */
    static final class Cluster {
        static final List<Integer> PORTS = EmbeddedRedis.startCluster(3);
        static final RedisClusterClient A = EmbeddedRedis.clusterClient(PORTS);
        static final RedisClusterClient B = EmbeddedRedis.clusterClient(PORTS);

        private Cluster() {
        }
    }
}
