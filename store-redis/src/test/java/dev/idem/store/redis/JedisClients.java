package dev.idem.store.redis;

import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * Jedis clients as an application on the Jedis under test makes them: {@code RedisClient} and
 * {@code RedisClusterClient} from 7.2 on (Jedis 8 has nothing else), {@code JedisPooled} and
 * {@code JedisCluster} before. The tests run on several Jedis versions (see the pom's
 * executions); each kind is built in its own class, so none is loaded where it does not exist.
 */
final class JedisClients {
    private JedisClients() {
    }

    static boolean modern() {
        try {
            Class.forName("redis.clients.jedis.RedisClient");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static UnifiedJedis standalone(HostAndPort node, JedisClientConfig config) {
        return modern() ? Modern.standalone(node, config) : Legacy.standalone(node, config);
    }

    static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config) {
        return modern() ? Modern.cluster(seeds, config) : Legacy.cluster(seeds, config);
    }

    /** The Jedis version on the class path, from its jar. */
    static String version() {
        String v = UnifiedJedis.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    private static final class Modern {
        static UnifiedJedis standalone(HostAndPort node, JedisClientConfig config) {
            return redis.clients.jedis.RedisClient.builder().hostAndPort(node).clientConfig(config).build();
        }

        static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config) {
            return redis.clients.jedis.RedisClusterClient.builder().nodes(seeds).clientConfig(config).maxAttempts(3)
                    .build();
        }
    }

    /** Jedis before 7 has no RedisClient builders: the pooled and cluster classes 7 deprecates are its only way. */
    @SuppressWarnings("deprecation")
    private static final class Legacy {
        static UnifiedJedis standalone(HostAndPort node, JedisClientConfig config) {
            return new JedisPooled(node, config);
        }

        static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config) {
            return new JedisCluster(seeds, config, 3);
        }
    }
}
