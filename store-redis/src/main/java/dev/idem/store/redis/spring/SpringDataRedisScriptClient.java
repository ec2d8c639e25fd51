package dev.idem.store.redis.spring;

import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.internal.SpringJedisScripts;
import dev.idem.store.redis.internal.SpringLettuceScripts;
import java.util.Objects;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link RedisScriptClient} over the application's Spring Data Redis
 * {@link RedisConnectionFactory}, so a Spring application needs no second Redis client:
 * <ul>
 *   <li>a {@code LettuceConnectionFactory} (Spring Boot's default): the adapter opens its own
 *       connection from the factory's Lettuce client (standalone, Sentinel or cluster; the
 *       factory's URI, credentials, database, TLS and timeout) and runs
 *       {@link dev.idem.store.redis.lettuce.LettuceScriptClient}'s asynchronous calls on it (so a
 *       store on it offers its non-blocking form); it closes that connection when closed, never
 *       the factory. A static master/replica
 *       configuration has no client URI to connect with; each call then fails with a
 *       non-retryable store error saying so;</li>
 *   <li>a {@code JedisConnectionFactory}: each call borrows a connection from the factory (its
 *       pool) and returns it, running the Jedis adapter's calls on the native Jedis
 *       connection.</li>
 * </ul>
 * Spring Data Redis 3.5 (Boot 3.5) to 4.1 (Boot 4.1) is supported.
 */
public final class SpringDataRedisScriptClient {
    private SpringDataRedisScriptClient() {
    }

    /**
     * The script client for {@code factory}, which it never closes or destroys.
     *
     * @param factory the application's connection factory
     * @return the script client
     * @throws IllegalArgumentException if the factory is neither Lettuce's nor Jedis'
     */
    public static RedisScriptClient of(RedisConnectionFactory factory) {
        Objects.requireNonNull(factory, "factory");
        if (is(factory, "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory")) {
            return SpringLettuceScripts.of(factory);
        }
        if (is(factory, "org.springframework.data.redis.connection.jedis.JedisConnectionFactory")) {
            return SpringJedisScripts.of(factory);
        }
        throw new IllegalArgumentException("idem's Redis store runs on a LettuceConnectionFactory or a "
                + "JedisConnectionFactory, not on " + factory.getClass().getName()
                + "; pass a RedisScriptClient for your client instead");
    }

    // By name, so that the driver the application does not use is never loaded.
    private static boolean is(Object o, String className) {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }
}
