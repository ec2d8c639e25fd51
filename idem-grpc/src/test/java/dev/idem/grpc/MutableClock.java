package dev.idem.grpc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A wall clock the test moves: leases lapse when the test says so, never by waiting. */
final class MutableClock extends Clock {
    private volatile Instant now = Instant.parse("2026-11-26T10:00:00Z");

    void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
