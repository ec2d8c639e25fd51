package dev.idem.engine;

import java.time.Duration;

/**
 * How often a key in progress is polled: 10 ms after the first poll that found it so, doubling
 * with each poll that finds it so again, up to 500 ms. A waiting caller pauses for about this long
 * between its polls ({@link #pauseMillis}); an engine's waiters of a key share one poll, and ask
 * for a new one only once the last answer is this old ({@link SharedPolls}).
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

    /**
     * A waiting caller's pause before its next claim, in milliseconds: between half the interval and
     * the whole of it by {@code jitter} (equal jitter: never zero, so no busy loop, and still spread
     * over a herd of waiters), but no later than just after the lease lapses (so a crashed holder is
     * taken over promptly) and no later than the caller's wait ends; at least 1.
     *
     * @param polls how many pauses this caller made before this one
     * @param jitter a random draw in [0, 1)
     * @param leaseLeftMillis how long the holder's lease has left, by the store's clock
     * @param waitLeftNanos how long the caller still waits (its policy's wait, or its deadline)
     */
    static long pauseMillis(int polls, double jitter, long leaseLeftMillis, long waitLeftNanos) {
        long ceiling = intervalNanos(polls) / 1_000_000;
        long delay = ceiling / 2 + (long) (jitter * (ceiling / 2 + 1));
        delay = Math.min(delay, leaseLeftMillis + 1);
        long waitLeftMillis = (waitLeftNanos + 999_999) / 1_000_000;
        return Math.max(1, Math.min(delay, waitLeftMillis));
    }
}
