package dev.idem.client;

import java.util.random.RandomGenerator;

/**
 * Randomness pinned to one end of every requested range, to hit jitter bounds exactly. Overrides the
 * bounded methods because the JDK's default bounded algorithms may loop on a constant source.
 */
final class FixedRandom implements RandomGenerator {

    private final boolean high;

    private FixedRandom(boolean high) {
        this.high = high;
    }

    /** Always the top of the range (inclusive upper bound = bound - 1). */
    static FixedRandom highest() {
        return new FixedRandom(true);
    }

    /** Always the bottom of the range. */
    static FixedRandom lowest() {
        return new FixedRandom(false);
    }

    @Override
    public long nextLong() {
        return high ? -1L : 0L;
    }

    @Override
    public long nextLong(long bound) {
        return high ? bound - 1 : 0;
    }

    @Override
    public long nextLong(long origin, long bound) {
        return high ? bound - 1 : origin;
    }

    @Override
    public int nextInt(int bound) {
        return high ? bound - 1 : 0;
    }
}
