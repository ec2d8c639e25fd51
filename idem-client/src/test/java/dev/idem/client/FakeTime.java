package dev.idem.client;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Virtual time for tests: sleeping records the delay and advances the ticker and the clock. */
final class FakeTime implements Ticker, Sleeper {

    static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");

    private final AtomicLong nanos = new AtomicLong();
    private final List<Duration> sleeps = new ArrayList<>();

    @Override
    public long read() {
        return nanos.get();
    }

    @Override
    public synchronized void sleep(Duration duration) {
        if (duration.isNegative()) {
            throw new AssertionError("negative sleep " + duration);
        }
        sleeps.add(duration);
        advance(duration);
    }

    void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    synchronized List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }

    Duration elapsed() {
        return Duration.ofNanos(nanos.get());
    }

    Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Instant instant() {
                return EPOCH.plusNanos(nanos.get());
            }
        };
    }

    /** A policy builder wired to this virtual time. */
    RetryPolicy.Builder policy() {
        return RetryPolicy.builder().ticker(this).sleeper(this).clock(clock());
    }
}
