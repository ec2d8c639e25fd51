package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Keeps the lease of pending asynchronous work, and of blocking work whose lease a caller's
 * deadline shortened: a third of the lease after the claim, and after each extension (so a store
 * that falls behind gets no burst of catch-up beats), it extends the lease by a whole lease (fenced
 * by the claim's token; never shortening one the work extended further itself), until
 * {@link #stop()} or until the work has been pending {@code maxPending} on the engine's ticker.
 * Past that bound it stops, so the lease
 * lapses within one lease and a duplicate may take the key over: a stage that never completes
 * does not hold its key forever. A refused extension (another claim holds the key) stops it too;
 * a store failure is logged and the next beat tries again.
 *
 * <p>A beat runs on the engine's renewal executor ({@link AsyncRuntime#renewals()}), never in the
 * async executor's queue, so however many duplicates wait, a renewal waits only for other
 * renewals and for the store; one it refuses is tried again at the next beat.
 *
 * <p>A beat runs its store call holding this heartbeat's lock, and {@link #stop()} takes it: once
 * {@code stop()} returns no beat runs, so none can lengthen a lease the engine has since cut
 * short (a hand-back) or outlive the record.
 *
 * <p>Over a {@link dev.idem.api.store.NonBlockingStore} a beat holds no thread: the timer starts
 * the store's non-blocking extension (past the engine's lanes, so it waits behind no claim of the
 * engine's) and the next beat is scheduled when it answers. {@link #stop()} then returns a stage
 * that completes once no extension is in flight; the engine ends the key only after it, for the
 * same reason.
 */
final class Heartbeat {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final IdempotencyEngine engine;
    private final IdempotencyKey key;
    private final StepContext ctx;
    private final boolean nonBlocking;
    /** The non-blocking extension in flight, or null. */
    private CompletableFuture<Instant> extending;
    private final Duration lease;
    /** A third of the lease, at least a millisecond; made a {@link Duration} only when a beat is scheduled. */
    private final long intervalNanos;
    /** The ticker reading when the latest beat fell due; null before the first. */
    private Long firedAt;
    private final long deadline;
    private final Duration maxPending;
    private final Supplier<Executor> executor;
    private final Scheduler scheduler;
    private boolean stopped;
    private Scheduler.Cancellable next;

    Heartbeat(IdempotencyEngine engine, IdempotencyKey key, StepContext ctx, Duration lease, Duration maxPending,
            Supplier<Executor> executor, Scheduler scheduler) {
        this(engine, key, ctx, lease, maxPending, executor, scheduler, false);
    }

    /**
     * @param nonBlocking whether beats go through the store's non-blocking form (asynchronous work
     *     only: its ending waits for {@link #stop()}'s stage, a blocking call's would not)
     */
    Heartbeat(IdempotencyEngine engine, IdempotencyKey key, StepContext ctx, Duration lease, Duration maxPending,
            Supplier<Executor> executor, Scheduler scheduler, boolean nonBlocking) {
        this.engine = engine;
        this.key = key;
        this.ctx = ctx;
        this.lease = lease;
        this.intervalNanos = Math.max(1_000_000L, lease.toNanos() / 3);
        this.deadline = engine.ticker.read() + maxPending.toNanos();
        this.maxPending = maxPending;
        this.executor = executor;
        this.scheduler = scheduler;
        this.nonBlocking = nonBlocking && engine.nonBlocking != null;
    }

    /** Schedules the first beat. */
    synchronized void start() {
        scheduleNext();
    }

    private void due() {
        synchronized (this) {
            firedAt = engine.ticker.read();
        }
        if (nonBlocking) {
            beatNonBlocking();
            return;
        }
        try {
            executor.get().execute(this::beat);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the lease renewal of {0} was refused ({1}); trying again at the next beat",
                    key.digest(), e.toString());
            scheduleNext();
        }
    }

    /**
     * Schedules the next beat an interval after the last one fell due, not after its renewal
     * answered: a renewal that waited for a thread or a slow store then does not push every later
     * beat back by its wait (delays would add up over a long pending work until a lease ran out).
     * A beat already overdue is sent at once, never twice.
     */
    private synchronized void scheduleNext() {
        if (stopped) {
            return;
        }
        long delay = intervalNanos;
        if (firedAt != null) {
            delay = Math.max(0L, firedAt + intervalNanos - engine.ticker.read());
        }
        try {
            next = scheduler.schedule(Duration.ofNanos(delay), this::due);
        } catch (RuntimeException e) {
            stopped = true;
            LOG.log(Level.WARNING, "the heartbeat of {0} cannot be scheduled ({1}); its lease lapses unless the work"
                    + " ends first", key.digest(), e.toString());
        }
    }

    private synchronized void beat() {
        if (stopped || pastDeadline()) {
            return;
        }
        try {
            ctx.keepAlive(lease);
        } catch (LeaseLostException e) {
            stopped = true;
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not extend the lease of pending work for {0} ({1}); trying again",
                    key.digest(), e.getMessage());
        }
        scheduleNext();
    }

    private synchronized void beatNonBlocking() {
        if (stopped || pastDeadline()) {
            return;
        }
        CompletableFuture<Instant> extension;
        try {
            extension = ctx.keepAliveNonBlocking(lease);
        } catch (RuntimeException e) {
            extension = CompletableFuture.failedFuture(e);
        }
        extending = extension;
        extension.whenComplete((deadline, e) -> extended(e));
    }

    private synchronized void extended(Throwable failure) {
        extending = null;
        if (failure instanceof LeaseLostException) {
            stopped = true;
            return;
        }
        if (failure != null) {
            LOG.log(Level.WARNING, "could not extend the lease of pending work for {0} ({1}); trying again",
                    key.digest(), failure.getMessage());
        }
        scheduleNext();
    }

    /** Whether the work has been pending past maxPendingWork (then the beating stops). */
    private boolean pastDeadline() {
        if (engine.ticker.read() - deadline >= 0) {
            stopped = true;
            LOG.log(Level.WARNING, "the work of {0} is still pending after {1} (maxPendingWork for asynchronous work,"
                    + " the lease of a blocking call under a deadline); its lease is no longer extended and"
                    + " lapses, so a duplicate may take the key over", key.digest(), maxPending);
            return true;
        }
        return false;
    }

    /**
     * Stops beating; waits for a blocking beat in progress.
     *
     * @return null if no non-blocking extension is in flight (nearly always: one is only while
     *     the store answers a beat), else a stage that completes once it answered
     */
    synchronized CompletableFuture<Void> stop() {
        stopped = true;
        if (next != null) {
            next.cancel();
        }
        CompletableFuture<Instant> inFlight = extending;
        return inFlight == null ? null : inFlight.handle((deadline, e) -> null);
    }
}
