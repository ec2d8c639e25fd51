package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.internal.BackoffMath;
import java.math.BigInteger;
import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class BackoffProperties {

    /** min(cap, base * 2^retry), computed without any overflow shortcut. */
    private static long exactCeiling(long base, long cap, int retry) {
        BigInteger product = BigInteger.valueOf(base).shiftLeft(retry);
        return product.min(BigInteger.valueOf(cap)).longValueExact();
    }

    @Property
    void fullJitterStaysWithinZeroAndTheCappedCeiling(
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long base,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long extra,
            @ForAll @IntRange(min = 0, max = 200) int retry,
            @ForAll long seed) {
        long cap = base + extra;
        long delay = BackoffMath.full(base, cap, retry, new SplittableRandom(seed));
        assertThat(delay).isBetween(0L, exactCeiling(base, cap, retry));
        assertThat(delay).isLessThanOrEqualTo(cap);
    }

    @Property
    void ceilingIsExactAndNeverDecreases(
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long base,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long extra,
            @ForAll @IntRange(min = 0, max = 200) int retry) {
        long cap = base + extra;
        assertThat(BackoffMath.ceiling(base, cap, retry)).isEqualTo(exactCeiling(base, cap, retry));
        assertThat(BackoffMath.ceiling(base, cap, retry + 1))
                .isGreaterThanOrEqualTo(BackoffMath.ceiling(base, cap, retry));
    }

    @Property
    void equalJitterStaysInTheUpperHalf(
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long base,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long extra,
            @ForAll @IntRange(min = 0, max = 200) int retry,
            @ForAll long seed) {
        long cap = base + extra;
        long ceiling = exactCeiling(base, cap, retry);
        long delay = BackoffMath.equal(base, cap, retry, new SplittableRandom(seed));
        assertThat(delay).isBetween(ceiling - ceiling / 2, ceiling);
    }

    @Property
    void decorrelatedJitterStaysBetweenBaseAndCapAndThreeTimesPrevious(
            @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long base,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long extra,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long previous,
            @ForAll long seed) {
        long cap = base + extra;
        long delay = BackoffMath.decorrelated(base, cap, previous, new SplittableRandom(seed));
        long prev = previous == 0 ? base : previous;
        BigInteger upper = BigInteger.valueOf(prev).multiply(BigInteger.valueOf(3));
        assertThat(delay).isBetween(base, cap);
        assertThat(BigInteger.valueOf(delay)).isLessThanOrEqualTo(upper.max(BigInteger.valueOf(base)));
    }

    @Property
    void policyDelaysStayWithinFullJitterBounds(
            @ForAll @LongRange(min = 1, max = 10_000) long baseMillis,
            @ForAll @LongRange(min = 0, max = 100_000) long extraMillis,
            @ForAll @IntRange(min = 0, max = 100) int retry,
            @ForAll long seed) {
        Duration base = Duration.ofMillis(baseMillis);
        Duration cap = base.plusMillis(extraMillis);
        RetryPolicy policy =
                RetryPolicy.builder()
                        .baseDelay(base)
                        .maxDelay(cap)
                        .random(new SplittableRandom(seed))
                        .deadline(cap)
                        .build();
        long ceiling = exactCeiling(base.toNanos(), cap.toNanos(), retry);
        assertThat(policy.backoff(retry, null)).isBetween(Duration.ZERO, Duration.ofNanos(ceiling));
    }
}
