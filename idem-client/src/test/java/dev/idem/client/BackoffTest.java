package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static RetryPolicy policy(Jitter jitter, RandomGenerator random) {
        return RetryPolicy.builder()
                .baseDelay(Duration.ofMillis(100))
                .maxDelay(Duration.ofSeconds(1))
                .jitter(jitter)
                .random(random)
                .build();
    }

    @Test
    void fullJitterTopOfRangeDoublesUpToTheCap() {
        RetryPolicy p = policy(Jitter.FULL, FixedRandom.highest());
        assertThat(p.backoff(0, null)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoff(1, null)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.backoff(2, null)).isEqualTo(Duration.ofMillis(400));
        assertThat(p.backoff(3, null)).isEqualTo(Duration.ofMillis(800));
        assertThat(p.backoff(4, null)).isEqualTo(Duration.ofSeconds(1));
        // Exactly the cap, never a millisecond over it.
        assertThat(p.backoff(5, null)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void fullJitterIsGuardedAgainstOverflowOfTwoToTheAttempt() {
        RetryPolicy p = policy(Jitter.FULL, FixedRandom.highest());
        assertThat(p.backoff(62, null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.backoff(63, null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.backoff(64, null)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.backoff(Integer.MAX_VALUE, null)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void fullJitterBottomOfRangeIsZero() {
        RetryPolicy p = policy(Jitter.FULL, FixedRandom.lowest());
        assertThat(p.backoff(0, null)).isZero();
        assertThat(p.backoff(30, null)).isZero();
    }

    @Test
    void jitterDoesNotVanishAtTheCap() {
        // The cap bounds the range before drawing: at the cap, delays still spread over [0, cap].
        RetryPolicy p = policy(Jitter.FULL, new SplittableRandom(42));
        Set<Duration> seen = new HashSet<>();
        boolean lowerHalf = false;
        for (int i = 0; i < 200; i++) {
            Duration d = p.backoff(40, null);
            assertThat(d).isBetween(Duration.ZERO, Duration.ofSeconds(1));
            seen.add(d);
            lowerHalf |= d.compareTo(Duration.ofMillis(500)) < 0;
        }
        assertThat(seen).hasSizeGreaterThan(150);
        assertThat(lowerHalf).isTrue();
    }

    @Test
    void equalJitterKeepsHalfFixed() {
        assertThat(policy(Jitter.EQUAL, FixedRandom.lowest()).backoff(2, null))
                .isEqualTo(Duration.ofMillis(200));
        assertThat(policy(Jitter.EQUAL, FixedRandom.highest()).backoff(2, null))
                .isEqualTo(Duration.ofMillis(400));
        assertThat(policy(Jitter.EQUAL, FixedRandom.lowest()).backoff(50, null))
                .isEqualTo(Duration.ofMillis(500));
        assertThat(policy(Jitter.EQUAL, FixedRandom.highest()).backoff(50, null))
                .isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void decorrelatedJitterGrowsFromThePreviousDelay() {
        RetryPolicy high = policy(Jitter.DECORRELATED, FixedRandom.highest());
        assertThat(high.backoff(0, null)).isEqualTo(Duration.ofMillis(300));
        assertThat(high.backoff(1, Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(900));
        assertThat(high.backoff(2, Duration.ofMillis(900))).isEqualTo(Duration.ofSeconds(1));
        // Overflow of previous * 3 is guarded.
        assertThat(high.backoff(3, Duration.ofNanos(Long.MAX_VALUE))).isEqualTo(Duration.ofSeconds(1));
        RetryPolicy low = policy(Jitter.DECORRELATED, FixedRandom.lowest());
        assertThat(low.backoff(5, Duration.ofMillis(900))).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void hugeDurationsDoNotOverflow() {
        RetryPolicy p =
                RetryPolicy.builder()
                        .baseDelay(Duration.ofNanos(1))
                        .maxDelay(Duration.ofNanos(Long.MAX_VALUE))
                        .deadline(Duration.ofNanos(Long.MAX_VALUE))
                        .random(FixedRandom.highest())
                        .build();
        assertThat(p.backoff(62, null)).isEqualTo(Duration.ofNanos(1L << 62));
        assertThat(p.backoff(63, null)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
        assertThat(p.toBuilder().jitter(Jitter.EQUAL).build().backoff(100, null))
                .isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    }
}
