package dev.idem.client.internal;

import java.util.random.RandomGenerator;

/**
 * Jittered backoff arithmetic in nanoseconds. Pure apart from the injected randomness; every bound is
 * inclusive and every product is guarded against overflow. Not API.
 */
public final class BackoffMath {

    private BackoffMath() {}

    /**
     * Returns {@code min(cap, base * 2^retry)} without overflowing, for {@code 0 < base <= cap} and
     * {@code retry >= 0}.
     */
    public static long ceiling(long base, long cap, int retry) {
        if (retry < 0) {
            throw new IllegalArgumentException("retry must not be negative but was " + retry);
        }
        // base * 2^k <= cap exactly when base <= floor(cap / 2^k); the shift below then cannot overflow.
        if (retry >= Long.SIZE - 1 || base > (cap >>> retry)) {
            return cap;
        }
        return base << retry;
    }

    /** Full jitter: uniform in {@code [0, ceiling]}. The cap bounds the range, not the drawn value. */
    public static long full(long base, long cap, int retry, RandomGenerator random) {
        return uniform(ceiling(base, cap, retry), random);
    }

    /** Equal jitter: the upper half of the ceiling is fixed, the lower half is random. */
    public static long equal(long base, long cap, int retry, RandomGenerator random) {
        long ceiling = ceiling(base, cap, retry);
        long half = ceiling / 2;
        return (ceiling - half) + uniform(half, random);
    }

    /**
     * Decorrelated jitter: {@code min(cap, uniform(base, previous * 3))}; a non-positive {@code
     * previous} means "no previous delay" and counts as {@code base}.
     */
    public static long decorrelated(long base, long cap, long previous, RandomGenerator random) {
        long prev = previous <= 0 ? base : previous;
        long upper = prev > Long.MAX_VALUE / 3 ? Long.MAX_VALUE : prev * 3;
        upper = Math.max(upper, base);
        return Math.min(cap, base + uniform(upper - base, random));
    }

    /** Uniform in {@code [0, max]}, both inclusive, for {@code max >= 0}. */
    static long uniform(long max, RandomGenerator random) {
        if (max == 0) {
            return 0;
        }
        if (max == Long.MAX_VALUE) {
            return random.nextLong() & Long.MAX_VALUE;
        }
        return random.nextLong(max + 1);
    }
}
