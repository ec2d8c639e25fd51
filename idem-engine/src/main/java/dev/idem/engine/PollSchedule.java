package dev.idem.engine;

import java.time.Duration;

/**
 * How often a key in progress is polled: 10 ms after the first poll that found it so, doubling
 * with each poll that finds it so again, up to 500 ms. A waiting caller pauses for about this long
 * between its polls (with jitter, see {@link Execution}); an engine's waiters of a key share one
 * poll, and ask for a new one only once the last answer is this old ({@link SharedPolls}).
 */
final class PollSchedule {
    static final Duration FIRST = Duration.ofMillis(10);
    static final Duration MAX = Duration.ofMillis(500);

    private PollSchedule() {
    }

    /** The interval after {@code polls} polls in a row found the key in progress, in nanoseconds. */
    static long intervalNanos(int polls) {
        return Math.min(MAX.toNanos(), FIRST.toNanos() << Math.min(polls, 16));
    }
}
