package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;

/**
 * The blocking driver of one call: a loop on the caller's thread over the call's decisions
 * ({@link Execution}) and the {@link DirectPort}. Claim (sharing the key's polls with the engine's
 * other waiters if the call waits), judge, and then replay, pause on the engine's sleeper and claim
 * again, or run the work on this thread (with a heartbeat if a deadline shortened the claim's
 * lease) and carry out the {@link Ending} {@link Execution#finish} decides, one store call after
 * another. Every store call is made on this thread and answered before it returns: nothing on the
 * way builds a stage or a future.
 */
final class BlockingCall<T> {
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

    BlockingCall(EngineParts parts, IdempotencyKey key, JavaType type, CallOptions options, Object request,
            Runner<? extends T> runner) {
        this.parts = parts;
        this.key = key;
        this.execution = new Execution<>(parts, key, type, options, request);
        this.runner = runner;
        this.port = parts.direct();
    }

    Result<T> run() {
        byte[] fingerprint = execution.fingerprint();
        Verdict<T> early = execution.beforeClaim(fingerprint);
        if (early != null) {
            execution.apply(early);
            if (early.kind() == Verdict.Kind.REPLAY) {
                return early.replay();
            }
            throw early.answer();
        }
        boolean shares = execution.waits();
        for (;;) {
            long token = parts.nextToken();
            long beforeClaim = parts.ticker().read();
            ClaimResult claim;
            long sentAt = beforeClaim;
            if (shares) {
                SharedPolls.Ticket ticket = parts.polls().join(key);
                // A shared answer may have been asked for before this call's own reading: the entry it
                // caches is counted from when the poll's question left.
                sentAt = Math.min(beforeClaim, ticket.poll.sentAt);
                claim = sharedClaim(ticket, fingerprint, token);
            } else {
                claim = claim(fingerprint, token);
            }
            Verdict<T> verdict = execution.judge(claim, fingerprint, sentAt);
            execution.apply(verdict);
            switch (verdict.kind()) {
                case RUN:
                    return execution.spent() ? carryOut(execution.refuse(claim))
                            : execute(claim, beforeClaim, verdict.journal());
                case REPLAY:
                    return verdict.replay();
                case ANSWER:
                    throw verdict.answer();
                case END:
                    return carryOut(verdict.ending());
                default:
                    pause(verdict);
            }
        }
    }

    private void pause(Verdict<T> verdict) {
        try {
            parts.sleeper().sleep(Duration.ofMillis(verdict.pauseMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw verdict.conflict(key);
        }
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
    private ClaimResult sharedClaim(SharedPolls.Ticket ticket, byte[] fingerprint, long token) {
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
            return ticket.await();
        } catch (InterruptedException e) {
            // An interrupted wait is the 409 it would have ended in; nothing is held.
            Thread.currentThread().interrupt();
            throw new RequestInProgressException(key, parts.retryAfterHint());
        }
    }

    /**
     * Runs the work under the claim won at {@code beforeClaim} (a ticker reading taken before the claim
     * call), with the {@code journal} the claim handed over, and ends the key.
     */
    private Result<T> execute(ClaimResult claim, long beforeClaim, byte[] journal) {
        StepContext ctx = execution.begin(claim, beforeClaim, Thread.currentThread(), journal);
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
                // A renewal in flight must not outlive the work.
                beat.stopAndAwait();
            }
            ctx.close();
        }
        // Work that completed the record itself (in its transaction, after the claim) is checked against it.
        Execution.SelfCompleted<T> self = !runner.completesItself() ? null
                : (v, token, attempt, fingerprint) -> new Ending.Confirm<>(execution.recorder(), token, attempt,
                        fingerprint, v, beforeClaim, selfEncoded);
        try {
            return carryOut(execution.finish(ctx, value, failure, self));
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

    /**
     * Carries out the key's ending on this thread, one store call after another, each step's
     * effects applied as it is reached; returns the result it ends with, or throws its answer.
     */
    private Result<T> carryOut(Ending<T> ending) {
        Ending<T> step = ending;
        while (!(step instanceof Ending.Answer)) {
            execution.apply(step);
            step = step instanceof Ending.Confirm ? confirm((Ending.Confirm<T>) step) : write((Ending.Write<T>) step);
        }
        execution.apply(step);
        Ending.Answer<T> answer = (Ending.Answer<T>) step;
        Throwable thrown = answer.thrown();
        if (thrown == null) {
            return answer.result();
        }
        if (thrown instanceof Error) {
            throw (Error) thrown;
        }
        throw thrown instanceof RuntimeException ? (RuntimeException) thrown
                : new UndeclaredThrowableException(thrown);
    }

    private Ending<T> write(Ending.Write<T> step) {
        long sentAt = parts.ticker().read();
        boolean written;
        try {
            switch (step.kind()) {
                case COMPLETE:
                    written = port.complete(key, step.token(), step.outcome(), execution.ttl());
                    break;
                case RELEASE:
                    written = port.release(key, step.token());
                    break;
                default:
                    written = port.extendLease(key, step.token(), Ending.HAND_BACK);
                    break;
            }
        } catch (RuntimeException | Error e) {
            return step.next(false, e, sentAt);
        }
        return step.next(written, null, sentAt);
    }

    private Ending<T> confirm(Ending.Confirm<T> step) {
        StoredRecord now;
        try {
            now = port.find(key).orElse(null);
        } catch (RuntimeException | Error e) {
            return step.found(null, e);
        }
        return step.found(now, null);
    }
}
