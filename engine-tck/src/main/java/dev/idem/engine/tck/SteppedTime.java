package dev.idem.engine.tck;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The time of a load run: the store's clock (moved through the fixture) and the engines' ticker
 * move together, only when the test steps them; a blocking caller's sleep ends when the steps
 * reach its end, so threads run concurrently while time stands still between steps. Every wait
 * for a step is bounded in real time.
 */
final class SteppedTime {
    private final StoreFixture fixture;
    private final Duration realBound;
    // Starts below zero: a ticker's origin is arbitrary, and only differences may count.
    private volatile long nanos = -Duration.ofDays(1).toNanos();
    private final long origin = nanos;

    SteppedTime(StoreFixture fixture, Duration realBound) {
        this.fixture = fixture;
        this.realBound = realBound;
    }

    Ticker ticker() {
        return () -> nanos;
    }

    /** How far time has been stepped. */
    Duration elapsed() {
        return Duration.ofNanos(nanos - origin);
    }

    /** How far into the run the ticker reading {@code ticker} is. */
    Duration elapsedAt(long ticker) {
        return Duration.ofNanos(ticker - origin);
    }

    /** Lets {@code d} pass on the store's clock and the ticker, and wakes the sleepers it reaches. */
    void step(Duration d) throws InterruptedException {
        fixture.advance(d);
        synchronized (this) {
            nanos += d.toNanos();
            notifyAll();
        }
    }

    private boolean aborted;

    /** Wakes sleepers to check their own stop condition. */
    synchronized void poke() {
        notifyAll();
    }

    /** Ends every sleep now and later, as an interrupted wait: the run is over. */
    synchronized void abort() {
        aborted = true;
        notifyAll();
    }

    /** The engines' sleeper: returns once the steps have passed {@code d}. */
    Sleeper sleeper() {
        return d -> sleepUntil(nanos + d.toNanos(), () -> false);
    }

    /**
     * Waits until the ticker reaches {@code target} or {@code stop} holds (checked on each step
     * and {@link #poke}).
     *
     * @return true if the time came, false if stopped
     * @throws InterruptedException if the real-time bound passes first, as a wait cut short
     */
    synchronized boolean sleepUntil(long target, BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + realBound.toNanos();
        while (nanos - target < 0) {
            if (stop.getAsBoolean()) {
                return false;
            }
            if (aborted) {
                throw new InterruptedException("the load run is over");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new InterruptedException("the test's steps did not reach the end of this sleep within "
                        + realBound);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    long now() {
        return nanos;
    }
}
