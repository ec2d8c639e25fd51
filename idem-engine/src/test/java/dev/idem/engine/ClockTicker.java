package dev.idem.engine;

import dev.idem.api.time.Ticker;
import java.time.Clock;

/** A ticker that reads a test's clock, so simulated time passes for the engine's durations as it does for the store. */
final class ClockTicker {
    private ClockTicker() {
    }

    static Ticker of(Clock clock) {
        return () -> clock.millis() * 1_000_000L;
    }
}
