package dev.idem.store.hybrid.internal;

import dev.idem.api.time.Ticker;
import dev.idem.store.hybrid.HybridStoreEvent.Type;

/**
 * Whether to use the gate at all. After a failed gate call the gate is skipped for the retry
 * interval (so a dead or stalled Redis costs one timeout, not one per call); after that the
 * next call tries it again, and the first success closes the breaker. Thread-safe.
 */
public final class Breaker {
    private final Ticker ticker;
    private final long retryNanos;
    private final Events events;
    private volatile boolean down;
    private volatile long retryAt;

    /**
     * Creates a closed breaker.
     *
     * @param ticker the monotonic clock
     * @param retryNanos how long the gate is skipped after a failure
     * @param events where GATE_DOWN and GATE_UP go
     */
    public Breaker(Ticker ticker, long retryNanos, Events events) {
        this.ticker = ticker;
        this.retryNanos = retryNanos;
        this.events = events;
    }

    /** Whether the next call may use the gate. */
    boolean allows() {
        return !down || ticker.read() - retryAt >= 0;
    }

    /**
     * Whether the gate is currently considered down.
     *
     * @return whether the last gate call failed
     */
    public boolean isDown() {
        return down;
    }

    void succeeded() {
        if (!down) {
            return;
        }
        boolean changed;
        synchronized (this) {
            changed = down;
            down = false;
        }
        if (changed) {
            events.emit(Type.GATE_UP, null, null);
        }
    }

    void failed(Throwable cause) {
        boolean changed;
        synchronized (this) {
            retryAt = ticker.read() + retryNanos;
            changed = !down;
            down = true;
        }
        if (changed) {
            events.emit(Type.GATE_DOWN, null, cause);
        }
    }
}
