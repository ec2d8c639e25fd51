package dev.idem.testing;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The time of a crash test: the store's clock, the engines' wall clock and their monotonic ticker
 * move together, only when the tester moves them (a lease lapsing, a caller waiting), so nothing
 * waits in real time and every run is the same.
 */
final class SimulatedTime {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private volatile long nanos;

    /**
     * Lets {@code d} pass on every clock.
     *
     * @param d how long
     */
    synchronized void advance(Duration d) {
        nanos += d.toNanos();
    }

    /**
     * The wall clock, for the store and the engines.
     *
     * @return a clock that reads the simulated time
     */
    Clock clock() {
        return new Clock() {
            @Override
            public Instant instant() {
                return START.plusNanos(nanos);
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException("the crash tester's clock is UTC only");
            }
        };
    }

    /**
     * The engines' monotonic ticker.
     *
     * @return a ticker that reads the simulated time
     */
    Ticker ticker() {
        return () -> nanos;
    }

    /**
     * The engines' sleeper: the pause passes at once on every clock.
     *
     * @return a sleeper that moves the simulated time
     */
    Sleeper sleeper() {
        return this::advance;
    }
}
