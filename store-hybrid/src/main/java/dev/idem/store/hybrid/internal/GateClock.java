package dev.idem.store.hybrid.internal;

import dev.idem.api.time.Ticker;
import java.time.Clock;
import org.jspecify.annotations.Nullable;

/**
 * The gate's notion of time, as far as the Java side needs it.
 *
 * <p>Server mode (no clock given): the scripts read Redis {@code TIME}. Every script reply
 * carries that reading, and with the local monotonic {@link Ticker} at the moment the reply
 * arrived it makes an anchor. Since the script read {@code TIME} before the reply arrived,
 * {@code anchorTime + (t - anchorTicks)} is a reading the gate's clock had reached by any
 * later local instant {@code t}: a lower bound. A deadline the database granted is carried
 * into the gate as that lower bound at a mark taken before the database call, plus the time
 * the database granted, so it can only fall due earlier on the gate than in the database,
 * however late the write reaches Redis and whatever the two servers' clocks read (only their
 * rates must agree, to the margin the store keeps).
 *
 * <p>Test mode (a clock given): the scripts are passed the clock's reading instead of
 * {@code TIME}, and marks are that reading; with the same clock as the database's test clock
 * every instant matches the database's to the millisecond.
 */
public final class GateClock {
    /** Returned by {@link #lowerBound} before the gate ever answered (server mode). */
    public static final long UNKNOWN = Long.MIN_VALUE;

    private final @Nullable Clock clock;
    private final Ticker ticker;
    private volatile long @Nullable [] anchor;

    /**
     * Creates the clock.
     *
     * @param clock the test clock, or null for Redis {@code TIME}
     * @param ticker the monotonic source for server mode
     */
    public GateClock(@Nullable Clock clock, Ticker ticker) {
        this.clock = clock;
        this.ticker = ticker;
    }

    /** A mark of "now", to take before a database call. */
    long mark() {
        return clock != null ? clock.millis() : ticker.read();
    }

    /** The script argument for "now": the test clock's reading, or empty for Redis {@code TIME}. */
    String nowArgument() {
        return clock != null ? Long.toString(clock.millis()) : "";
    }

    /**
     * The sender's bound for a script about to be sent: a reading of the gate's clock already
     * reached now (the test clock's reading in test mode), or empty before the gate ever answered.
     * A script that runs late counts the claim's deadlines from this, not from its own run.
     */
    String sentArgument() {
        if (clock != null) {
            return Long.toString(clock.millis());
        }
        long bound = lowerBound(ticker.read());
        return bound == UNKNOWN ? "" : Long.toString(bound);
    }

    /** Records the gate's reading carried by a reply that has just arrived. */
    void observed(long gateNow) {
        if (clock == null) {
            anchor = new long[] {gateNow, ticker.read()};
        }
    }

    /**
     * A gate-clock reading already reached at {@code mark} (ms), or {@link #UNKNOWN}.
     *
     * @param mark a value of {@link #mark()}
     * @return the lower bound
     */
    long lowerBound(long mark) {
        if (clock != null) {
            return mark;
        }
        long[] a = anchor;
        if (a == null) {
            return UNKNOWN;
        }
        return a[0] + Math.floorDiv(mark - a[1], 1_000_000L);
    }

    /** The local wall clock (the test clock in test mode), for the rare answer built from a database read. */
    java.time.Instant wallNow() {
        return clock != null ? clock.instant() : java.time.Instant.now();
    }

    /** Whether the scripts use the test clock. */
    boolean simulated() {
        return clock != null;
    }
}
