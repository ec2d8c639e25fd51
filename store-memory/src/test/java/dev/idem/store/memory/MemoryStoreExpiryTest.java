package dev.idem.store.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.tck.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MemoryStoreExpiryTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

    @Test
    void steadyKeyRateDoesNotGrowMemoryWithoutBound() {
        Duration ttl = Duration.ofSeconds(10);
        int perSecond = 100;
        for (int second = 0; second < 120; second++) {
            for (int i = 0; i < perSecond; i++) {
                IdempotencyKey k = IdempotencyKey.of("s", "op", "k-" + second + "-" + i);
                long token = second * 1000L + i;
                store.claim(k, new byte[] {1}, token, Duration.ofSeconds(1), ttl);
                store.complete(k, token, new byte[] {2}, ttl);
            }
            clock.advance(Duration.ofSeconds(1));
        }
        // Live records span one TTL (1,000); the amortized sweep may lag by a few batches.
        assertThat(store.size()).isLessThan((int) ttl.toSeconds() * perSecond * 2 + MemoryIdempotencyStore.SWEEP_BATCH);
        // Unexpired records are never swept: those written in the last nine seconds are all still held.
        assertThat(store.size()).isGreaterThanOrEqualTo(9 * perSecond);
        assertThat(store.find(IdempotencyKey.of("s", "op", "k-119-99"))).isPresent();
    }

    @Test
    void purgeFreesExpiredRecords() {
        for (int i = 0; i < 10; i++) {
            IdempotencyKey k = IdempotencyKey.of("s", "op", "k" + i);
            store.claim(k, new byte[] {1}, i, Duration.ofSeconds(1), Duration.ofSeconds(5));
        }
        assertThat(store.size()).isEqualTo(10);
        clock.advance(Duration.ofSeconds(6));
        assertThat(store.size()).as("expired but not yet purged").isEqualTo(10);
        assertThat(store.purgeExpired(4)).isEqualTo(4);
        assertThat(store.size()).isEqualTo(6);
        assertThat(store.purgeExpired(100)).isEqualTo(6);
        assertThat(store.size()).isZero();
    }
}
