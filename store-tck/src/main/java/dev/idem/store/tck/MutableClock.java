package dev.idem.store.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe clock that moves only when told to, so tests of leases and expiry never
 * sleep. Millisecond resolution, UTC.
 */
public final class MutableClock extends Clock {
    private final AtomicLong millis;

    /**
     * A clock standing at {@code start}.
     *
     * @param start the first reading
     */
    public MutableClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    /** A clock standing at 2030-01-01T00:00:00Z. */
    public MutableClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    /**
     * Moves the clock forward (or back, for skew tests) by {@code d}.
     *
     * @param d how far to move
     */
    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    /**
     * Sets the clock to {@code instant}.
     *
     * @param instant the new reading
     */
    public void set(Instant instant) {
        millis.set(instant.toEpochMilli());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("MutableClock is UTC only");
    }
}
