package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The Lettuce side of the Spring Data Redis adapter: the factory's native client, a connection of our own. */
public final class SpringLettuceScripts {
    private SpringLettuceScripts() {
    }

    /**
     * The script client over a {@code LettuceConnectionFactory}, started here if the application
     * context has not started it yet (it makes its client when it starts).
     *
     * @param factory the factory
     * @return the script client
     */
    public static RedisScriptClient of(RedisConnectionFactory factory) {
        LettuceConnectionFactory lettuce = (LettuceConnectionFactory) factory;
        if (!lettuce.isRunning()) {
            lettuce.start();
        }
        AbstractRedisClient client = lettuce.getRequiredNativeClient();
        if (client instanceof RedisClusterClient) {
            return LettuceScriptClient.of((RedisClusterClient) client);
        }
        if (client instanceof RedisClient) {
            return LettuceScriptClient.of((RedisClient) client);
        }
        throw new IllegalArgumentException("the LettuceConnectionFactory's client is a " + client.getClass().getName()
                + ", neither a RedisClient nor a RedisClusterClient");
    }
}
