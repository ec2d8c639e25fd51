package dev.idem.spring.boot;

import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import dev.idem.store.redis.spring.SpringDataRedisScriptClient;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where the Redis store finds the application's client: one source per client library, each in a
 * configuration that is active only when the library is on the class path (so a Lettuce-only
 * application never loads a Jedis class), tried in their order.
 */
final class RedisClients {
    private RedisClients() {
    }

    /** A Redis client of the application, as a script client, if it has one (a unique bean). */
    interface Source {
        /** The script client over the application's client, or empty. */
        Optional<RedisScriptClient> scriptClient();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(UnifiedJedis.class)
    static class Jedis {
        @Bean
        @Order(1)
        Source idemJedisSource(ObjectProvider<UnifiedJedis> clients) {
            return () -> Optional.ofNullable(clients.getIfUnique()).map(JedisScriptClient::of);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(io.lettuce.core.RedisClient.class)
    static class Lettuce {
        @Bean
        @Order(2)
        Source idemLettuceSource(ObjectProvider<io.lettuce.core.RedisClient> clients,
                ObjectProvider<io.lettuce.core.cluster.RedisClusterClient> clusterClients) {
            return () -> {
                io.lettuce.core.RedisClient client = clients.getIfUnique();
                if (client != null) {
                    return Optional.of(LettuceScriptClient.of(client));
                }
                return Optional.ofNullable(clusterClients.getIfUnique()).map(LettuceScriptClient::of);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisConnectionFactory.class)
    static class SpringData {
        @Bean
        @Order(3)
        Source idemSpringDataRedisSource(ObjectProvider<RedisConnectionFactory> factories) {
            return () -> Optional.ofNullable(factories.getIfUnique()).map(SpringDataRedisScriptClient::of);
        }
    }
}
