package dev.idem.engine.tck;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;

/**
 * The time of a fault-injection run: the store's clock (moved through the fixture), the
 * engines' monotonic ticker and their wall clock all move together, and nothing waits for real.
 * The wall clock may stand apart from the store's (skew) and may be stepped while the engine
 * waits, as NTP would: neither may change what the engine does.
 */
final class SimulatedTime {
    private static final Duration STEP = Duration.ofHours(1);

    private final StoreFixture fixture;
    private final MutableClock wall;
    private final boolean stepWallInWaits;
    // Starts below zero: a ticker's origin is arbitrary, and only differences may count.
    private long nanos = -Duration.ofDays(1).toNanos();
    private long slept;
    private long passed;
    private int steps;

    SimulatedTime(StoreFixture fixture, Instant wallStart, boolean stepWallInWaits) {
        this.fixture = fixture;
        this.wall = new MutableClock(wallStart);
        this.stepWallInWaits = stepWallInWaits;
    }

    /** Lets {@code d} pass on every clock. */
    void advance(Duration d) {
        try {
            fixture.advance(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while moving the store's clock", e);
        }
        nanos += d.toNanos();
        passed += d.toNanos();
        wall.advance(d);
    }

    /** How far the store's clock has been moved. */
    Duration passed() {
        return Duration.ofNanos(passed);
    }

    Ticker ticker() {
        return () -> nanos;
    }

    MutableClock wall() {
        return wall;
    }

    /** The engines' sleeper: the wait passes at once on every clock, and the wall clock may jump meanwhile. */
    Sleeper sleeper() {
        return d -> {
            slept += d.toNanos();
            advance(d);
            if (stepWallInWaits) {
                // Back an hour, then forward again, and so on: a bounded wait must not notice.
                wall.advance(steps++ % 2 == 0 ? STEP.negated() : STEP);
            }
        };
    }

    /** How long the engines have slept so far. */
    Duration slept() {
        return Duration.ofNanos(slept);
    }
}
