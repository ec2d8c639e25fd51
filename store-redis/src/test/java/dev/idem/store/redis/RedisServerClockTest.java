package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leases are judged by the Redis server's clock: a node whose JVM clock runs ten minutes
 * ahead cannot take a live lease over, even when its store comes from the provider on that
 * clock; only a store explicitly given that clock (the test clock) would, which is the
 * control showing the first assertion can fail.
 */
@Timeout(60)
class RedisServerClockTest {
    private static final Duration LEASE = Duration.ofSeconds(20);
    private static final Duration TTL = Duration.ofHours(1);
    private static final byte[] FP = {1};

    @Test
    void aJvmClockTenMinutesAheadCannotTakeOverALiveLeaseUnlessTheStoreIsGivenIt() {
        IdempotencyKey key = IdempotencyKey.of("clock-" + UUID.randomUUID(), "op", "k");
        Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
        RedisIdempotencyStore honest = RedisIdempotencyStore.create(Client.JEDIS.standalone(0));
        assertThat(honest.claim(key, FP, 1, LEASE, TTL).claimed()).isTrue();
        assertThat(honest.capabilities().serverClock()).isTrue();

        try (IdempotencyStore provided = new RedisStoreProvider().create(new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return skewed;
            }

            @Override
            public Map<String, String> properties() {
                return Map.of(RedisStoreProvider.URI, "redis://127.0.0.1:" + EmbeddedRedis.standalonePort());
            }
        })) {
            assertThat(provided.claim(key, FP, 2, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
            assertThat(provided.capabilities().serverClock()).isTrue();
        }

        RedisIdempotencyStore onSkewedClock = RedisIdempotencyStore.builder(Client.LETTUCE.standalone(1)).clock(skewed).build();
        assertThat(onSkewedClock.capabilities().serverClock()).isFalse();
        assertThat(onSkewedClock.claim(key, FP, 3, LEASE, TTL).status()).isEqualTo(Status.TAKEN_OVER);
    }
}
