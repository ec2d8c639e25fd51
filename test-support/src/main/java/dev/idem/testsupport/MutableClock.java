package dev.idem.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe clock that moves only when told to, so tests of leases and expiry never
 * sleep. Nanosecond resolution ({@link #millis()} rounds down), UTC.
 *
 * <p>Keep it off whole seconds: a store that truncates its deadlines to seconds (or to
 * milliseconds where it claims finer time) looks correct on a clock that only ever reads
 * {@code hh:mm:ss.000}. The store test kit moves every simulated clock to a sub-second
 * offset before each test for that reason.
 */
public final class MutableClock extends Clock {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    // Epoch nanoseconds: a long holds them until the year 2262.
    private final AtomicLong nanos;

    /**
     * A clock standing at {@code start}.
     *
     * @param start the first reading
     */
    public MutableClock(Instant start) {
        this.nanos = new AtomicLong(epochNanos(start));
    }

    /** A clock standing at 2030-01-01T00:00:00Z. */
    public MutableClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    /**
     * Moves the clock forward (or back, for skew tests) by {@code d}, to the nanosecond.
     *
     * @param d how far to move
     */
    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    /**
     * Sets the clock to {@code instant}.
     *
     * @param instant the new reading
     */
    public void set(Instant instant) {
        nanos.set(epochNanos(instant));
    }

    @Override
    public long millis() {
        return Math.floorDiv(nanos.get(), NANOS_PER_MILLI);
    }

    @Override
    public Instant instant() {
        long n = nanos.get();
        return Instant.ofEpochSecond(Math.floorDiv(n, NANOS_PER_SECOND), Math.floorMod(n, NANOS_PER_SECOND));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("MutableClock is UTC only");
    }

    private static long epochNanos(Instant i) {
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), NANOS_PER_SECOND), i.getNano());
    }
}
