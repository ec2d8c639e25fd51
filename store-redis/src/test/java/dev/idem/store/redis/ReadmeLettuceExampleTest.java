package dev.idem.store.redis;

import static dev.idem.store.redis.ReadmeJedisExampleTest.runsOnceThenReplays;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import dev.idem.store.redis.spring.SpringDataRedisScriptClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The README's Lettuce and Spring Data Redis examples, run as printed (readme-tests checks the
 * README against these regions) on the shared embedded Redis. In a file of their own because
 * Lettuce's {@code RedisClient} and Jedis' share a simple name.
 */
@Timeout(60)
class ReadmeLettuceExampleTest {
    private final String redisHost = EmbeddedRedis.HOST;
    private final int redisPort = EmbeddedRedis.standalonePort();
    /** As a Spring application has it: a started factory, the context's to destroy. */
    private final RedisConnectionFactory connectionFactory = SpringFactories.LettuceStandalone.FACTORY;

    @Test
    void lettuce() {
        // tag::lettuce[]
        // a RedisClient or RedisClusterClient (the adapter opens one connection of its own),
        // or a StatefulRedisConnection / StatefulRedisClusterConnection you own, of any codec
        RedisClient lettuce = RedisClient.create(RedisURI.builder()
                .withHost(redisHost).withPort(redisPort)   // e.g. "redis.internal", 6379
                .withTimeout(Duration.ofSeconds(1))        // the command timeout bounds every store call
                .build());
        IdempotencyStore store = RedisIdempotencyStore.builder(LettuceScriptClient.of(lettuce)).build();

        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // end::lettuce[]
        try (store; engine) {
            runsOnceThenReplays(engine);
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void springDataRedis() {
        // tag::spring[]
        // the application's RedisConnectionFactory (Lettuce or Jedis underneath)
        IdempotencyStore store = RedisIdempotencyStore.builder(SpringDataRedisScriptClient.of(connectionFactory))
                .build();

        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // end::spring[]
        try (store; engine) {
            runsOnceThenReplays(engine);
        }
    }
}
