package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/** Jedis clients for the provider: {@code RedisClient} and {@code RedisClusterClient} where Jedis has them (7.2+). */
final class JedisProvision {
    private JedisProvision() {
    }

    static RedisScriptClient standalone(URI uri, int timeout) {
        DefaultJedisClientConfig.Builder cfg = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeout).socketTimeoutMillis(timeout)
                .user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri))
                .database(JedisURIHelper.getDBIndex(uri));
        if (JedisURIHelper.isRedisSSLScheme(uri)) {
            cfg.sslOptions(SslOptions.defaults());
        }
        HostAndPort node = JedisURIHelper.getHostAndPort(uri);
        UnifiedJedis client = modern() ? Modern.standalone(node, cfg.build()) : Legacy.standalone(node, cfg.build());
        return JedisScriptClient.owning(client);
    }

    static RedisScriptClient cluster(List<URI> seeds, int timeout) {
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        seeds.forEach(u -> nodes.add(new HostAndPort(u.getHost(), u.getPort())));
        DefaultJedisClientConfig cfg = DefaultJedisClientConfig.builder().connectionTimeoutMillis(timeout)
                .socketTimeoutMillis(timeout).build();
        UnifiedJedis client = modern() ? Modern.cluster(nodes, cfg) : Legacy.cluster(nodes, cfg);
        return JedisScriptClient.owning(client);
    }

    // Jedis 8 removed JedisPooled; Jedis before 7.2 has no RedisClient. Each kind is built in its
    // own class, so verifying this one never loads a class the running Jedis lacks.
    private static boolean modern() {
        try {
            Class.forName("redis.clients.jedis.RedisClient", false, JedisProvision.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static final class Modern {
        static UnifiedJedis standalone(HostAndPort node, DefaultJedisClientConfig cfg) {
            return redis.clients.jedis.RedisClient.builder().hostAndPort(node).clientConfig(cfg).build();
        }

        static UnifiedJedis cluster(Set<HostAndPort> nodes, DefaultJedisClientConfig cfg) {
            return redis.clients.jedis.RedisClusterClient.builder().nodes(nodes).clientConfig(cfg).build();
        }
    }

    /** Jedis before 7 has no RedisClient builders: the pooled and cluster classes 7 deprecates are its only way. */
    @SuppressWarnings("deprecation")
    private static final class Legacy {
        static UnifiedJedis standalone(HostAndPort node, DefaultJedisClientConfig cfg) {
            return new JedisPooled(node, cfg);
        }

        static UnifiedJedis cluster(Set<HostAndPort> nodes, DefaultJedisClientConfig cfg) {
            return new JedisCluster(nodes, cfg);
        }
    }
}
