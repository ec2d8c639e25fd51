package dev.idem.benchmarks.internal;

/** Counts the round trips a store has made to its backend so far. */
public interface TripCounter {
    /**
     * The total so far, including every trip started before this call (counters that learn
     * of trips asynchronously synchronise before answering).
     */
    long total();
}
