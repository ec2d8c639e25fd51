package dev.idem.client;

/**
 * How randomness spreads the delay before a retry, so that clients that failed together do not retry
 * together. {@code k} is the 0-based retry index, {@code ceiling = min(cap, base * 2^k)}.
 */
public enum Jitter {
    /** {@code random(0, ceiling)}: the widest spread and the least total load; the default. */
    FULL,
    /** {@code ceiling/2 + random(0, ceiling/2)}: never retries sooner than half the ceiling. */
    EQUAL,
    /**
     * {@code min(cap, random(base, previous * 3))}, where {@code previous} starts at {@code base}: grows
     * from the last delay actually drawn rather than from the attempt number.
     */
    DECORRELATED
}
