package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.engine.IdempotencyEvent.Type;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The blocking driver of one call: a loop on the caller's thread over the call's decisions
 * ({@link Execution}) and the {@link DirectPort}. Claim (sharing the key's polls with the engine's
 * other waiters if the call waits), judge, and then replay, pause on the engine's sleeper and claim
 * again, or run the work on this thread (with a heartbeat if a deadline shortened the claim's
 * lease) and end the key as {@link Execution#finish} decides. Every store call is made on this
 * thread and answered before it returns, so the writes that end the key chain no stages.
 */
final class BlockingCall<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    /** The work, plain or completing the record itself. */
    interface Runner<T> {
        T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception;

        boolean completesItself();
    }

    static <T> Runner<T> plain(Work<? extends T> work) {
        Objects.requireNonNull(work, "work");
        return new Runner<>() {
            @Override
            public T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception {
                return work.execute(ctx);
            }

            @Override
            public boolean completesItself() {
                return false;
            }
        };
    }

    static <T> Runner<T> atomic(AtomicWork<? extends T> work) {
        Objects.requireNonNull(work, "work");
        return new Runner<>() {
            @Override
            public T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception {
                return work.executeAndComplete(ctx, completion);
            }

            @Override
            public boolean completesItself() {
                return true;
            }
        };
    }

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final Execution<T> execution;
    private final Runner<? extends T> runner;
    private final DirectPort port;
    // What work that completes itself last encoded, so its first caller decodes the whole result.
    private volatile Recorder.Encoded selfEncoded;
    // The ticker when the last shared claim's question left (see SharedPolls.Poll#sentAt).
    private long sharedSent;

    BlockingCall(EngineParts parts, IdempotencyKey key, JavaType type, CallOptions options,
            Runner<? extends T> runner) {
        this.parts = parts;
        this.key = key;
        this.execution = new Execution<>(parts, key, type, options);
        this.runner = runner;
        this.port = parts.direct();
    }

    Result<T> run(Object request) {
        byte[] fingerprint = execution.fingerprint(request);
        execution.refuseIfSpent();
        Result<T> cached = execution.fromNearCache(fingerprint);
        if (cached != null) {
            return cached;
        }
        boolean shares = execution.waits();
        Execution<T>.Waiting waiting = execution.new Waiting();
        for (;;) {
            long token = parts.nextToken();
            long beforeClaim = parts.ticker().read();
            ClaimResult claim = shares ? sharedClaim(fingerprint, token) : claim(fingerprint, token);
            // A shared answer may have been asked for before this call's own reading: the entry it
            // caches is counted from when the poll's question left.
            Execution.Verdict<T> verdict = execution.judge(claim, fingerprint, waiting,
                    shares ? Math.min(beforeClaim, sharedSent) : beforeClaim);
            if (verdict.unreadable != null) {
                throw StoreWrites.join(execution.handBackUnreadable(claim, verdict.unreadable, writes()));
            }
            if (verdict.claimed()) {
                if (execution.spent()) {
                    throw StoreWrites.join(execution.refuseClaimed(claim, writes()));
                }
                return execute(claim, beforeClaim);
            }
            if (verdict.replay != null) {
                return verdict.replay;
            }
            try {
                parts.sleeper().sleep(Duration.ofMillis(verdict.pauseMillis));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw verdict.conflict();
            }
        }
    }

    private StoreWrites writes() {
        return execution.writes(port);
    }

    /** One claim of the key, and again under the record's older fingerprint if the request matches it. */
    private ClaimResult claim(byte[] fingerprint, long token) {
        Duration lease = execution.nextClaimLease();
        byte[] used = execution.claimedUnder(fingerprint);
        ClaimResult result = port.claim(key, used, token, lease, execution.ttl());
        byte[] again = execution.reclaimUnder(result, used);
        return again == null ? result : port.claim(key, again, parts.nextToken(), lease, execution.ttl());
    }

    /**
     * A waiting caller's claim, shared with the engine's other waiters of the key
     * ({@link SharedPolls}): sent from this thread, or the answer of one in flight or just answered.
     */
    private ClaimResult sharedClaim(byte[] fingerprint, long token) {
        SharedPolls.Ticket ticket = parts.polls().join(key);
        sharedSent = ticket.poll.sentAt;
        if (ticket.issuer()) {
            try {
                ClaimResult claim = claim(fingerprint, token);
                ticket.answer(claim);
                return claim;
            } catch (RuntimeException | Error e) {
                ticket.fail(e);
                throw e;
            }
        }
        try {
            return ticket.seen(ticket.answer().get());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw cause instanceof RuntimeException ? (RuntimeException) cause
                    : new StoreUnavailableException("the claim of " + key + " failed: " + cause, cause, true);
        } catch (InterruptedException e) {
            // An interrupted wait is the 409 it would have ended in; nothing is held.
            Thread.currentThread().interrupt();
            throw new RequestInProgressException(key, parts.retryAfterHint());
        }
    }

    /** Runs the work under the claim won at {@code beforeClaim} (a ticker reading taken before the claim call). */
    private Result<T> execute(ClaimResult claim, long beforeClaim) {
        StepContext ctx = execution.begin(claim, beforeClaim, Thread.currentThread());
        // Only work that completes itself needs the encoder; plain work allocates nothing here.
        byte[] recorded = claim.record().fingerprint();
        AtomicWork.Completion completion = !runner.completesItself() ? null : new AtomicWork.Completion() {
            @Override
            public byte[] encode(Object value) {
                Recorder.Encoded encoded = execution.recorder().encodeForWork(value, recorded);
                selfEncoded = encoded;
                return encoded.stored();
            }

            @Override
            public Duration ttl() {
                return execution.ttl();
            }
        };
        T value = null;
        Throwable failure = null;
        Heartbeat beat = null;
        Deadline.Scope bound = execution.bindDeadline();
        try {
            beat = heartbeat(ctx);
            value = runner.run(ctx, completion);
        } catch (Exception | Error e) {
            failure = e;
        } finally {
            if (bound != null) {
                bound.close();
            }
            if (beat != null) {
                stop(beat);
            }
            ctx.close();
        }
        Execution.SelfCompleted<T> self = runner.completesItself()
                ? (v, token, attempt, fingerprint) -> completedItself(beforeClaim, v, token, attempt, fingerprint)
                : null;
        try {
            return StoreWrites.join(execution.finish(ctx, value, failure, writes(), self));
        } finally {
            if (failure instanceof InterruptedException) {
                // Set only now: an interrupted thread would have failed the store calls above.
                Thread.currentThread().interrupt();
            }
            parts.polls().forget(key);
        }
    }

    /**
     * A heartbeat for work whose lease the deadline shortened, or null: it renews that lease every
     * third of it while the work runs, for at most the call's own lease, so a budget never lets a
     * live worker lose its key sooner than it would without one, nor holds the key longer. The
     * work's own {@link ExecutionContext#extendLease} is never cut short by it.
     */
    private Heartbeat heartbeat(StepContext ctx) {
        Duration renewal = execution.lease();
        Duration lease = execution.callLease();
        if (renewal.compareTo(lease) >= 0) {
            return null;
        }
        Heartbeat beat = new Heartbeat(key, ctx.fencingToken(), ctx, renewal, lease, port.renewals(),
                parts.ticker(), parts.async().renewalTimer());
        beat.start();
        return beat;
    }

    /** Stops the heartbeat and waits for a renewal in flight, which must not outlive the work. */
    private static void stop(Heartbeat beat) {
        CompletableFuture<Void> inFlight = beat.stop();
        if (inFlight != null) {
            inFlight.join();
        }
    }

    /**
     * Checks that an {@link AtomicWork} that returned normally did complete the record (in its
     * transaction, after the claim sent at {@code claimSent}, a ticker reading).
     */
    private CompletableFuture<Result<T>> completedItself(long claimSent, T value, long token, int attempt,
            byte[] fingerprint) {
        try {
            return CompletableFuture.completedFuture(checkCompletedItself(claimSent, value, token, attempt,
                    fingerprint));
        } catch (RuntimeException | Error e) {
            return Recorder.failed(e);
        }
    }

    private Result<T> checkCompletedItself(long claimSent, T value, long token, int attempt, byte[] fingerprint) {
        StoredRecord now;
        try {
            now = parts.store().find(key).orElse(null);
        } catch (StoreUnavailableException e) {
            LOG.log(Level.WARNING, "could not check that the atomic work completed {0}: {1}", key.digest(),
                    e.getMessage());
            execution.emit(Type.OUTCOME_NOT_STORED, attempt);
            return new Result<>(value, false, false, attempt);
        }
        if (now != null && now.fencingToken() == token && now.state() == RecordState.COMPLETED) {
            execution.emit(Type.FIRST_EXECUTION, attempt);
            execution.recorder().cache(fingerprint, now.outcome(), attempt, claimSent);
            Recorder.Encoded encoded = selfEncoded;
            byte[] whole = encoded != null && Arrays.equals(encoded.stored(), now.outcome()) ? encoded.plain() : null;
            if (whole == null && execution.untyped()) {
                whole = execution.open(now.outcome(), fingerprint);
            }
            return new Result<>(execution.plain(value, whole), false, true, attempt);
        }
        if (now != null && now.fencingToken() == token && now.state() == RecordState.IN_PROGRESS) {
            IllegalStateException bug = new IllegalStateException("AtomicWork for " + key
                    + " returned without completing the record; it must complete it in its transaction or throw");
            throw StoreWrites.join(execution.recorder().unstorable(token, attempt, fingerprint,
                    "the atomic work returned without completing the record (a programming error)", bug, writes()));
        }
        execution.emit(Type.LEASE_LOST, attempt);
        throw new LeaseLostException(key, token);
    }
}
