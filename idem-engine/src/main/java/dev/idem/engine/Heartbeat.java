package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Scheduler;
import dev.idem.api.time.Ticker;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps the lease of pending asynchronous work, and of blocking work whose lease a caller's
 * deadline shortened: a third of the lease after the claim, and after each extension (so a store
 * that falls behind gets no burst of catch-up beats), it extends the lease by a whole lease (fenced
 * by the claim's token; never shortening one the work extended further itself), until
 * {@link #stop()} or until the work has been pending {@code maxPending} on the engine's ticker.
 * Past that bound it stops, so the lease lapses within one lease and a duplicate may take the key
 * over: a stage that never completes does not hold its key forever. A refused extension (another
 * claim holds the key) stops it too; a store failure is logged and the next beat tries again.
 *
 * <p>Each beat is one call of a held key through a {@link StorePort} (the call's own, or for a
 * blocking call the engine's laned one): the timer only hands it in, it goes before every claim in
 * the engine's lane, and the next beat is scheduled an interval after this one fell due.
 * {@link #stop()} returns a stage that completes once no extension is in flight; the key is ended
 * only after it, so no renewal lengthens a lease the ending cuts short (a hand-back) or outlives
 * the record.
 */
final class Heartbeat {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    /** The lease a heartbeat keeps: the work's context, which knows how far its lease reaches. */
    interface Lease {
        /** Whether the lease already reaches further than {@code renewal} from now (the work extended it). */
        boolean reachesPast(Duration renewal);

        /** The store extended the lease by {@code renewal} from {@code sentAt} (a ticker reading) to {@code until}. */
        void renewed(long sentAt, Duration renewal, Instant until);
    }

    private final IdempotencyKey key;
    private final long token;
    private final Lease held;
    private final StorePort port;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Duration lease;
    /** A third of the lease, at least a millisecond; made a {@link Duration} only when a beat is scheduled. */
    private final long intervalNanos;
    private final long deadline;
    private final Duration maxPending;
    /** The ticker reading when the latest beat fell due; null before the first. */
    private Long firedAt;
    /** The extension in flight, or null. */
    private CompletableFuture<Optional<Instant>> extending;
    private boolean stopped;
    private Scheduler.Cancellable next;

    Heartbeat(IdempotencyKey key, long token, Lease held, Duration lease, Duration maxPending, StorePort port,
            Ticker ticker, Scheduler scheduler) {
        this.key = key;
        this.token = token;
        this.held = held;
        this.lease = lease;
        this.intervalNanos = Math.max(1_000_000L, lease.toNanos() / 3);
        this.deadline = ticker.read() + maxPending.toNanos();
        this.maxPending = maxPending;
        this.port = port;
        this.ticker = ticker;
        this.scheduler = scheduler;
    }

    /** Schedules the first beat. */
    synchronized void start() {
        scheduleNext();
    }

    private void due() {
        CompletableFuture<Optional<Instant>> extension;
        long sentAt;
        synchronized (this) {
            sentAt = ticker.read();
            firedAt = sentAt;
            if (stopped || pastDeadline()) {
                return;
            }
            if (held.reachesPast(lease)) {
                scheduleNext();
                return;
            }
            try {
                extension = port.extendLease(key, token, lease);
            } catch (RuntimeException e) {
                extension = CompletableFuture.failedFuture(e);
            }
            extending = extension;
        }
        extension.whenComplete((until, failure) -> extended(sentAt, until, failure));
    }

    private synchronized void extended(long sentAt, Optional<Instant> until, Throwable failure) {
        extending = null;
        notifyAll();
        if (failure == null && until.isEmpty()) {
            // Another claim holds the key: there is nothing left to keep.
            stopped = true;
            return;
        }
        if (failure != null) {
            LOG.log(Level.WARNING, "could not extend the lease of pending work for {0} ({1}); trying again",
                    key.digest(), AsyncCall.unwrap(failure).toString());
        } else {
            held.renewed(sentAt, lease, until.get());
        }
        scheduleNext();
    }

    /**
     * Schedules the next beat an interval after the last one fell due, not after its renewal
     * answered: a renewal that waited for a slot or a slow store then does not push every later
     * beat back by its wait (delays would add up over a long pending work until a lease ran out).
     * A beat already overdue is sent at once, never twice.
     */
    private synchronized void scheduleNext() {
        if (stopped) {
            return;
        }
        long delay = intervalNanos;
        if (firedAt != null) {
            delay = Math.max(0L, firedAt + intervalNanos - ticker.read());
        }
        try {
            next = scheduler.schedule(Duration.ofNanos(delay), this::due);
        } catch (RuntimeException e) {
            stopped = true;
            LOG.log(Level.WARNING, "the heartbeat of {0} cannot be scheduled ({1}); its lease lapses unless the work"
                    + " ends first", key.digest(), e.toString());
        }
    }

    /** Whether the work has been pending past maxPendingWork (then the beating stops). */
    private boolean pastDeadline() {
        if (ticker.read() - deadline >= 0) {
            stopped = true;
            LOG.log(Level.WARNING, "the work of {0} is still pending after {1} (maxPendingWork for asynchronous work,"
                    + " the lease of a blocking call under a deadline); its lease is no longer extended and"
                    + " lapses, so a duplicate may take the key over", key.digest(), maxPending);
            return true;
        }
        return false;
    }

    /**
     * Stops beating.
     *
     * @return null if no extension is in flight (nearly always: one is only while the store answers
     *     a beat), else a stage that completes once it answered
     */
    synchronized CompletableFuture<Void> stop() {
        stopBeating();
        CompletableFuture<Optional<Instant>> inFlight = extending;
        return inFlight == null ? null : inFlight.handle((until, e) -> null);
    }

    /**
     * Stops beating and returns once no extension is in flight: how the blocking driver stops it,
     * waiting on this thread (uninterruptibly, keeping an interrupt for later) rather than on a stage.
     */
    synchronized void stopAndAwait() {
        stopBeating();
        boolean interrupted = false;
        while (extending != null) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopBeating() {
        stopped = true;
        if (next != null) {
            next.cancel();
        }
    }
}
