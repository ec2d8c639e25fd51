package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.tck.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NearCacheTest {
    private final MutableClock clock = new MutableClock();
    private final byte[] fp = {1};
    private final byte[] outcome = {'S', '1'};

    private static IdempotencyKey key(int i) {
        return IdempotencyKey.of("t", "op", "k" + i);
    }

    @Test
    void holdsAtMostItsSize() {
        NearCache cache = new NearCache(10, clock);
        for (int i = 0; i < 1000; i++) {
            cache.put(key(i), fp, outcome, clock.millis() + 60_000, 1);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void eachEntryExpiresAtItsRecordsExpiry() {
        NearCache cache = new NearCache(10, clock);
        cache.put(key(1), fp, outcome, clock.millis() + 5_000, 1);
        cache.put(key(2), fp, outcome, clock.millis() + 60_000, 1);
        clock.advance(Duration.ofSeconds(5));
        assertThat(cache.get(key(1), clock.millis())).isNull();
        assertThat(cache.get(key(2), clock.millis())).isNotNull();
        clock.advance(Duration.ofSeconds(55));
        assertThat(cache.get(key(2), clock.millis())).isNull();
    }

    @Test
    void expiredEntriesDoNotAccumulate() {
        NearCache cache = new NearCache(100, clock);
        for (int i = 0; i < 10_000; i++) {
            cache.put(key(i), fp, outcome, clock.millis() + 1, 1);
            clock.advance(Duration.ofMillis(2));
        }
        // Expired entries go within the expiry wheel's granularity (about a second), never pile up.
        clock.advance(Duration.ofMinutes(2));
        assertThat(cache.size()).isZero();
    }
}
