package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Keeps the lease of pending asynchronous work, and of blocking work whose lease a caller's
 * deadline shortened: every third of the lease it extends the lease by a whole lease (fenced by
 * the claim's token; never shortening one the work extended further itself), until {@link #stop()}
 * or until the work has been pending {@code maxPending} on the engine's ticker. Past that bound it stops, so the lease
 * lapses within one lease and a duplicate may take the key over: a stage that never completes
 * does not hold its key forever. A refused extension (another claim holds the key) stops it too;
 * a store failure is logged and the next beat tries again.
 *
 * <p>A beat runs its store call holding this heartbeat's lock, and {@link #stop()} takes it: once
 * {@code stop()} returns no beat runs, so none can lengthen a lease the engine has since cut
 * short (a hand-back) or outlive the record.
 */
final class Heartbeat {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final IdempotencyEngine engine;
    private final IdempotencyKey key;
    private final StepContext ctx;
    private final Duration lease;
    private final Duration interval;
    private final long deadline;
    private final Duration maxPending;
    private final Executor executor;
    private final Scheduler scheduler;
    private boolean stopped;
    private Scheduler.Cancellable next;

    Heartbeat(IdempotencyEngine engine, IdempotencyKey key, StepContext ctx, Duration lease, Duration maxPending,
            Executor executor, Scheduler scheduler) {
        this.engine = engine;
        this.key = key;
        this.ctx = ctx;
        this.lease = lease;
        this.interval = Duration.ofNanos(Math.max(1_000_000L, lease.toNanos() / 3));
        this.deadline = engine.ticker.read() + maxPending.toNanos();
        this.maxPending = maxPending;
        this.executor = executor;
        this.scheduler = scheduler;
    }

    /** Schedules the first beat. */
    synchronized void start() {
        if (!stopped) {
            next = scheduler.schedule(interval, this::due);
        }
    }

    private void due() {
        try {
            executor.execute(this::beat);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the heartbeat of {0} could not run ({1}); its lease lapses unless the work ends",
                    key, e.toString());
        }
    }

    private synchronized void beat() {
        if (stopped) {
            return;
        }
        if (engine.ticker.read() - deadline >= 0) {
            stopped = true;
            LOG.log(Level.WARNING, "the work of {0} is still pending after {1} (maxPendingWork for asynchronous work,"
                    + " the lease of a blocking call under a deadline); its lease is no longer extended and"
                    + " lapses, so a duplicate may take the key over", key, maxPending);
            return;
        }
        try {
            ctx.keepAlive(lease);
        } catch (LeaseLostException e) {
            stopped = true;
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not extend the lease of pending work for {0} ({1}); trying again",
                    key, e.getMessage());
        }
        next = scheduler.schedule(interval, this::due);
    }

    /** Stops beating; waits for a beat in progress. */
    synchronized void stop() {
        stopped = true;
        if (next != null) {
            next.cancel();
        }
    }
}
