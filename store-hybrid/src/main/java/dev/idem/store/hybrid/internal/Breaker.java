package dev.idem.store.hybrid.internal;

import dev.idem.api.time.Ticker;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import java.lang.System.Logger.Level;

/**
 * Whether to use the gate at all. After a failed gate call the gate is skipped for the retry
 * interval (so a dead or stalled Redis costs one timeout, not one per call); after that the
 * next call tries it again, and the first success closes the breaker. Thread-safe.
 *
 * <p>Logs one WARNING line when the gate goes down (with the cause's message) and one when it
 * answers again (with how long it was down); the cause's stack trace goes to DEBUG, as does
 * every single failed call ({@link GatedOperations}), so an outage of any length is two lines.
 */
public final class Breaker {
    private static final System.Logger LOG = System.getLogger(Breaker.class.getName());

    private final Ticker ticker;
    private final long retryNanos;
    private final Events events;
    private volatile boolean down;
    private volatile long retryAt;
    private long downSince;

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
        long downNanos;
        synchronized (this) {
            changed = down;
            down = false;
            downNanos = ticker.read() - downSince;
        }
        if (changed) {
            LOG.log(Level.WARNING, "Redis gate answers again after {0} ms down; the hybrid store uses it again",
                    downNanos / 1_000_000);
            events.emit(Type.GATE_UP, null, null);
        }
    }

    void failed(Throwable cause) {
        boolean changed;
        synchronized (this) {
            long now = ticker.read();
            retryAt = now + retryNanos;
            changed = !down;
            if (changed) {
                downSince = now;
            }
            down = true;
        }
        if (changed) {
            LOG.log(Level.WARNING, "Redis gate is down ({0}); the hybrid store uses the database alone until it"
                    + " answers again", oneLine(cause));
            LOG.log(Level.DEBUG, "Redis gate is down", cause);
            events.emit(Type.GATE_DOWN, null, cause);
        }
    }

    /** The cause's message on one line (the gate's exceptions carry the client's message). */
    static String oneLine(Throwable cause) {
        String m = String.valueOf(cause.getMessage()).replaceAll("\\s+", " ");
        return m.length() > 300 ? m.substring(0, 300) + "..." : m;
    }
}
