package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * The README's Jedis example, run as printed (readme-tests checks the README against these
 * regions) on the shared embedded Redis: the work runs once and its duplicate is replayed.
 * Runs only in the default surefire execution (the build's Jedis, which has {@code RedisClient}).
 */
@Timeout(60)
class ReadmeJedisExampleTest {
    private final String redisHost = EmbeddedRedis.HOST;
    private final int redisPort = EmbeddedRedis.standalonePort();

    @Test
    void jedis() {
        // tag::jedis[]
        // any UnifiedJedis: RedisClient, RedisClusterClient (Jedis 7.2+); JedisPooled, JedisCluster up to 7.x
        RedisClient jedis = RedisClient.builder()
                .hostAndPort(redisHost, redisPort)     // e.g. "redis.internal", 6379
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(500)   // these two bound every store call
                        .socketTimeoutMillis(1000)
                        .build())
                .build();
        IdempotencyStore store = RedisIdempotencyStore.builder(JedisScriptClient.of(jedis))
                .keyPrefix("payments:idem:")           // default "idem:"
                .maxOutcomeBytes(4 * 1024 * 1024)      // default 16 MiB
                .build();

        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // end::jedis[]
        try (jedis; store; engine) {
            runsOnceThenReplays(engine);
        }
    }

    /**
     * The replica-wait variant, compiled but not run here: with no replica {@code WAIT 1} times out
     * and every claim fails (retryably), which is what it promises; {@code RedisWaitForReplicasTest}
     * runs the option against a real replica.
     */
    static IdempotencyStore waitingForAReplica(RedisClient jedis) {
        // tag::wait[]
        IdempotencyStore store = RedisIdempotencyStore.builder(JedisScriptClient.of(jedis))
                .waitForReplicas(1, Duration.ofMillis(200))   // a write counts once 1 replica has it
                .build();
        // end::wait[]
        return store;
    }

    /** What every README example promises: the work runs once, the duplicate gets its outcome. */
    static void runsOnceThenReplays(IdempotencyEngine engine) {
        IdempotencyKey key = IdempotencyKey.of("readme-" + UUID.randomUUID(), "POST /charges", "k-1");
        AtomicInteger runs = new AtomicInteger();
        Result<String> first = engine.execute(key, Map.of("amount", 10), String.class,
                ctx -> "ch_" + runs.incrementAndGet());
        Result<String> second = engine.execute(key, Map.of("amount", 10), String.class,
                ctx -> "ch_" + runs.incrementAndGet());

        assertThat(runs).hasValue(1);
        assertThat(first.replayed()).isFalse();
        assertThat(second.replayed()).isTrue();
        assertThat(second.value()).isEqualTo(first.value()).isEqualTo("ch_1");
    }
}
