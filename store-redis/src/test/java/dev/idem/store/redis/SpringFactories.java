package dev.idem.store.redis;

import java.util.stream.Collectors;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Spring Data Redis connection factories as an application configures them, on the shared servers, made once per JVM. */
final class SpringFactories {
    private SpringFactories() {
    }

    static RedisStandaloneConfiguration standalone() {
        return new RedisStandaloneConfiguration(EmbeddedRedis.HOST, EmbeddedRedis.standalonePort());
    }

    static RedisClusterConfiguration cluster() {
        return new RedisClusterConfiguration(EmbeddedRedis.clusterPorts().stream()
                .map(p -> EmbeddedRedis.HOST + ":" + p).collect(Collectors.toList()));
    }

    static <T extends org.springframework.beans.factory.InitializingBean> T started(T factory) {
        try {
            factory.afterPropertiesSet();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return factory;
    }

    /** Jedis underneath, standalone. */
    static final class JedisStandalone {
        static final JedisConnectionFactory FACTORY = started(new JedisConnectionFactory(standalone()));

        private JedisStandalone() {
        }
    }

    /** Jedis underneath, cluster. */
    static final class JedisCluster {
        static final JedisConnectionFactory FACTORY = started(new JedisConnectionFactory(cluster()));

        private JedisCluster() {
        }
    }

    /** Lettuce underneath, standalone. */
    static final class LettuceStandalone {
        static final LettuceConnectionFactory FACTORY = started(new LettuceConnectionFactory(standalone()));

        private LettuceStandalone() {
        }
    }

    /** Lettuce underneath, cluster. */
    static final class LettuceCluster {
        static final LettuceConnectionFactory FACTORY = started(new LettuceConnectionFactory(cluster()));

        private LettuceCluster() {
        }
    }
}
