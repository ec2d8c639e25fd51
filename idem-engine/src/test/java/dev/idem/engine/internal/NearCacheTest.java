package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NearCacheTest {
    // Starts below zero: readings have an arbitrary origin (System.nanoTime's may be negative), so only differences count.
    private final AtomicLong nanos = new AtomicLong(-Duration.ofSeconds(30).toNanos());
    private final Ticker ticker = nanos::get;
    private final byte[] fp = {1};
    private final byte[] outcome = {'S', '1'};

    private static IdempotencyKey key(int i) {
        return IdempotencyKey.of("t", "op", "k" + i);
    }

    @Test
    void holdsAtMostItsSize() {
        NearCache cache = new NearCache(10, ticker);
        for (int i = 0; i < 1000; i++) {
            cache.put(key(i), fp, outcome, ticker.read(), Duration.ofMinutes(1).toNanos(), 1);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void eachEntryExpiresAtItsRecordsExpiry() {
        NearCache cache = new NearCache(10, ticker);
        cache.put(key(1), fp, outcome, ticker.read(), Duration.ofSeconds(5).toNanos(), 1);
        cache.put(key(2), fp, outcome, ticker.read(), Duration.ofMinutes(1).toNanos(), 1);
        advance(Duration.ofSeconds(5));
        assertThat(cache.get(key(1))).isNull();
        assertThat(cache.get(key(2))).isNotNull();
        advance(Duration.ofSeconds(55));
        assertThat(cache.get(key(2))).isNull();
    }

    @Test
    void aRecachedKeyTakesItsNewTimeLeftAndKeepsItsAttempt() {
        NearCache cache = new NearCache(10, ticker);
        cache.put(key(1), fp, outcome, ticker.read(), Duration.ofSeconds(5).toNanos(), 1);
        assertThat(cache.size()).isEqualTo(1);
        cache.put(key(1), fp, outcome, ticker.read(), Duration.ofSeconds(50).toNanos(), 2);
        advance(Duration.ofSeconds(10));
        assertThat(cache.get(key(1))).isNotNull().satisfies(e -> assertThat(e.attempt()).isEqualTo(2));
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void anEntryLivesFromWhenItsQuestionWasSentNotFromWhenTheAnswerCame() {
        NearCache cache = new NearCache(10, ticker);
        long sent = ticker.read();
        // The answer ("5 s left") arrived 4 s after the question left: 1 s is left.
        advance(Duration.ofSeconds(4));
        cache.put(key(1), fp, outcome, sent, Duration.ofSeconds(5).toNanos(), 1);
        assertThat(cache.get(key(1))).isNotNull();
        advance(Duration.ofMillis(1001));
        assertThat(cache.get(key(1))).isNull();
    }

    @Test
    void expiredEntriesDoNotAccumulate() {
        NearCache cache = new NearCache(100, ticker);
        for (int i = 0; i < 10_000; i++) {
            cache.put(key(i), fp, outcome, ticker.read(), Duration.ofMillis(1).toNanos(), 1);
            advance(Duration.ofMillis(2));
        }
        // Expired entries go within the expiry wheel's granularity (about a second), never pile up.
        advance(Duration.ofMinutes(2));
        assertThat(cache.size()).isZero();
    }

    private void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}
