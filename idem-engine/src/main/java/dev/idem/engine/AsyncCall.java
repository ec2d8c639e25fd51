package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.time.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * The asynchronous driver of one call: the same decisions as the blocking one ({@link Execution}:
 * fingerprint, near cache, judge, {@link Execution#finish finish}), carried out as stages through
 * the call's {@link StorePort} (the engine's laned or non-blocking one), so both end a key alike and
 * answer alike; only where they run and how they wait differ.
 *
 * <ul>
 *   <li>Every store call goes through the port, never on the caller's thread for a blocking store;
 *       the fingerprint (CPU only), a near-cache replay and a replay of a poll another waiter just
 *       made are done on the caller's.</li>
 *   <li>A duplicate that waits for an in-progress key polls from a {@link Scheduler} task: no
 *       thread is parked meanwhile, and its claims are shared with the engine's other waiters of
 *       the key ({@link SharedPolls}), so a crowd of them sends one claim per poll interval.</li>
 *   <li>The work's stage is watched, not blocked on; from the claim on a {@link Heartbeat} extends
 *       the lease through the port. Once the stage completes, the key is ended off the thread that
 *       completed it, its writes going before waiting claims.</li>
 *   <li>Cancelling the answer while the call waits for its next poll stops it at once and returns
 *       its slot. Cancelled while its claim is in the store, the call gives back a key it won there
 *       (its work never starts) and then returns its slot. Once the work started, cancelling detaches
 *       the caller only: the work goes on, the record ends by its own outcome, and the slot is
 *       returned when it ends. A work stage that is itself cancelled may stand for an effect still
 *       under way, so the claim is kept and its lease lapses, as after a crash; the caller gets the
 *       {@link CancellationException}.</li>
 * </ul>
 * The answer completes with the very exception the blocking call would throw, never wrapped in
 * a {@link CompletionException}.
 */
final class AsyncCall<T> {
    private static final VarHandle SLOT_RETURNED;

    static {
        try {
            SLOT_RETURNED = MethodHandles.lookup().findVarHandle(AsyncCall.class, "slotReturned", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final Execution<T> execution;
    private final AsyncWork<? extends T> work;
    private final StorePort port;
    private final Executor executor;
    private final Scheduler scheduler;
    private final CompletableFuture<Result<T>> answer = new CompletableFuture<>();
    /** Whether this call's slot was returned (through {@link #SLOT_RETURNED}: once, whoever gets there first). */
    private volatile boolean slotReturned;
    /** Whether {@link #answer} is watched for a caller that cancels while this call waits for a poll. */
    private boolean cancelWatched;
    /**
     * Whether the engine does something for this call now (a claim in the store, the work, a
     * give-back): false only while it waits for its next poll. Its slot among the engine's
     * {@code maxAsyncCalls} is returned once the answer is done and this is false.
     */
    private volatile boolean active = true;
    private volatile Scheduler.Cancellable nextPoll;
    private byte[] fingerprint;

    AsyncCall(EngineParts parts, Execution<T> execution, AsyncWork<? extends T> work, StorePort port) {
        this.parts = parts;
        this.key = execution.key();
        this.execution = execution;
        this.work = work;
        this.port = port;
        this.executor = parts.async().executor();
        this.scheduler = parts.async().scheduler();
    }

    /** Starts the call, which holds one of the engine's slots (taken by the caller) until it ends. */
    CompletableFuture<Result<T>> start() {
        Verdict<T> early;
        try {
            fingerprint = execution.fingerprint();
            early = execution.beforeClaim(fingerprint);
            if (early != null) {
                execution.apply(early);
            }
        } catch (RuntimeException | Error e) {
            answerWith(null, e);
            return answer;
        }
        if (early == null) {
            poll();
        } else {
            answerWith(early.replay(), early.answer());
        }
        return answer;
    }

    /** Claims the key: its own claim, or, if the call waits, its share of the key's poll. */
    private void poll() {
        if (answer.isDone()) {
            becameIdle();
            return;
        }
        long token = parts.nextToken();
        long beforeClaim = parts.ticker().read();
        if (!execution.waits()) {
            claim(token, (claim, failure) -> judged(claim, failure, beforeClaim));
            return;
        }
        SharedPolls.Ticket ticket = parts.polls().join(key);
        if (ticket.issuer()) {
            claim(token, (claim, failure) -> {
                if (failure != null) {
                    ticket.fail(failure);
                } else {
                    ticket.answer(claim);
                }
                judged(claim, failure, beforeClaim);
            });
            return;
        }
        // Whoever answers the poll later (a blocking caller's own thread, maybe): go on on the executor.
        if (!ticket.whenAnswered((claim, failure) -> onExecutor(() -> judgedShared(ticket, claim, failure)))) {
            judgedShared(ticket, ticket.answer(), ticket.failure());
        }
    }

    /** This call's claim, and again under the record's older fingerprint if the request matches it. */
    private void claim(long token, StorePort.Answer<ClaimResult> then) {
        Duration lease = execution.nextClaimLease();
        byte[] used = execution.claimedUnder(fingerprint);
        port.claim(key, used, token, lease, execution.ttl(), (result, failure) -> {
            byte[] again;
            try {
                again = failure == null ? execution.reclaimUnder(result, used) : null;
            } catch (RuntimeException | Error e) {
                then.accept(null, e);
                return;
            }
            if (again == null) {
                then.accept(result, failure);
            } else {
                port.claim(key, again, parts.nextToken(), lease, execution.ttl(), then);
            }
        });
    }

    /** Judges another waiter's claim, which this call cannot have won. */
    private void judgedShared(SharedPolls.Ticket ticket, ClaimResult claim, Throwable failure) {
        // Counted from when the poll's question left, which may be before this call joined it.
        judged(failure == null ? ticket.seen(claim) : null, failure, ticket.poll.sentAt);
    }

    private void judged(ClaimResult claim, Throwable failure, long beforeClaim) {
        if (failure != null) {
            answerWith(null, unwrap(failure));
            return;
        }
        Verdict<T> verdict;
        try {
            verdict = execution.judge(claim, fingerprint, beforeClaim);
            execution.apply(verdict);
        } catch (RuntimeException | Error e) {
            answerWith(null, e);
            return;
        }
        switch (verdict.kind()) {
            case RUN:
                if (answer.isDone()) {
                    // The caller went away while its claim was in the store: give the key back unrun.
                    carryOut(execution.giveBackUnstarted(claim, verdict.journal()));
                } else if (execution.spent()) {
                    carryOut(execution.refuse(claim));
                } else {
                    run(claim, beforeClaim, verdict.journal());
                }
                break;
            case REPLAY:
            case ANSWER:
                answerWith(verdict.replay(), verdict.answer());
                break;
            case END:
                carryOut(verdict.ending());
                break;
            default:
                waitFor(verdict);
        }
    }

    /** Schedules the next poll; the call holds nothing meanwhile. */
    private void waitFor(Verdict<T> verdict) {
        active = false;
        if (!cancelWatched) {
            // From the first wait on (not before: most calls never wait), a caller that cancels (or
            // completes) the answer between polls stops the wait and returns the slot at once.
            cancelWatched = true;
            answer.whenComplete((r, e) -> {
                if (!active) {
                    stopWaiting();
                }
            });
        }
        if (answer.isDone()) {
            stopWaiting();
            return;
        }
        // On an engine thread: this may be the caller's (a poll another waiter just answered), and
        // a timer may take its pool's lock to start its thread.
        onExecutor(() -> schedulePoll(verdict));
    }

    private void schedulePoll(Verdict<T> verdict) {
        try {
            Scheduler.Cancellable next = scheduler.schedule(Duration.ofMillis(verdict.pauseMillis()), this::pollDue);
            nextPoll = next;
            if (answer.isDone()) {
                // Cancelled while this was being scheduled: the cancel saw no poll to stop.
                next.cancel();
            }
        } catch (RuntimeException e) {
            // A scheduler that cannot wait is an interrupted wait: the blocking call's 409.
            RuntimeException conflict = verdict.conflict(key);
            conflict.addSuppressed(e);
            answerWith(null, conflict);
        }
    }

    private void pollDue() {
        active = true;
        if (answer.isDone()) {
            becameIdle();
            return;
        }
        // The scheduler's thread only hands over: the poll may judge and decode on the executor.
        onExecutor(this::poll);
    }

    /** Runs {@code task} on the executor; if it refuses, the call ends with a store error (nothing is held). */
    private void onExecutor(Runnable task) {
        try {
            executor.execute(task);
        } catch (RuntimeException e) {
            answerWith(null, new StoreUnavailableException("the engine's async executor refused the poll of " + key
                    + ": " + e, e, true));
        }
    }

    private void run(ClaimResult claim, long beforeClaim, byte[] journal) {
        StepContext ctx = execution.begin(claim, beforeClaim, null, journal);
        Heartbeat heartbeat = new Heartbeat(key, ctx.fencingToken(), ctx, execution.lease(), parts.async().maxPending,
                port, parts.ticker(), parts.async().renewalTimer());
        // Before the work is called: a work that blocks before it returns its stage keeps its lease too.
        heartbeat.start();
        CompletionStage<? extends T> stage;
        try {
            stage = startWork(ctx);
            if (stage == null) {
                throw new NullPointerException("the AsyncWork for " + key + " returned null instead of a"
                        + " CompletionStage");
            }
        } catch (Exception | Error e) {
            workEnded(ctx, heartbeat, null, e);
            return;
        }
        stage.whenComplete((value, failure) -> workEnded(ctx, heartbeat, value, unwrap(failure)));
    }

    /** Calls the work with the caller's deadline bound to this thread while it starts its stage. */
    private CompletionStage<? extends T> startWork(StepContext ctx) throws Exception {
        dev.idem.api.time.Deadline.Scope bound = execution.bindDeadline();
        try {
            return work.execute(ctx);
        } finally {
            if (bound != null) {
                bound.close();
            }
        }
    }

    /**
     * The work's stage completed, maybe on an event loop or a store client's I/O thread, where
     * nothing may block: on an engine thread, stop the heartbeat (which cancels its timer task) and
     * end the key once no renewal is in flight.
     */
    private void workEnded(StepContext ctx, Heartbeat heartbeat, T value, Throwable failure) {
        onEngineThread(() -> {
            // Once no renewal is in flight: none may lengthen a lease the ending cuts short (a hand-back).
            CompletableFuture<Void> renewing = heartbeat.stop();
            if (renewing == null) {
                recordOutcome(ctx, value, failure);
            } else {
                renewing.whenComplete((v, stopFailure) -> recordOutcome(ctx, value, failure));
            }
        });
    }

    /** Ends the key by the work's outcome; on an engine thread (the renewal's answer comes on one too). */
    private void recordOutcome(StepContext ctx, T value, Throwable failure) {
        ctx.close();
        Ending<T> ending;
        try {
            ending = failure instanceof CancellationException ? Ending.Answer.kept(failure, Ending.warning("the"
                    + " asynchronous work of {0} was cancelled; its effect may still be under way, so the claim is"
                    + " kept until its lease lapses (then a retry takes the key over)", key))
                    : execution.finish(ctx, value, failure, null);
        } catch (RuntimeException | Error e) {
            ending = Ending.Answer.thrown(e);
        }
        carryOut(ending);
    }

    /**
     * Carries out the key's ending through the port, a stage for each store call, each step's
     * effects applied as it is reached; then no poll of the key is worth sharing any more, and the
     * caller gets the answer.
     */
    private void carryOut(Ending<T> step) {
        execution.apply(step);
        if (step instanceof Ending.Answer) {
            Ending.Answer<T> ended = (Ending.Answer<T>) step;
            parts.polls().forget(key);
            answerWith(ended.result(), ended.thrown());
        } else {
            write((Ending.Write<T>) step, parts.ticker().read(), 0);
        }
    }

    /** Sends {@code step}'s write (its {@code tried}-th try, first sent at {@code sentAt}), then the next step. */
    private void write(Ending.Write<T> step, long sentAt, int tried) {
        CompletableFuture<Boolean> written;
        try {
            switch (step.kind()) {
                case COMPLETE:
                    written = port.complete(key, step.token(), step.outcome(), execution.ttl());
                    break;
                case RELEASE:
                    written = port.release(key, step.token());
                    break;
                default:
                    written = port.extendLease(key, step.token(), Ending.HAND_BACK).thenApply(Optional::isPresent);
                    break;
            }
        } catch (RuntimeException | Error e) {
            written = CompletableFuture.failedFuture(e);
        }
        written.whenComplete((ok, failure) -> {
            Throwable cause = unwrap(failure);
            long pause = step.kind() != Ending.Write.Kind.COMPLETE ? -1
                    : Ending.retryPauseMillis(tried, cause, parts.completeAttempts());
            if (pause < 0) {
                next(step, cause == null && ok, cause, sentAt);
                return;
            }
            port.pause(Duration.ofMillis(pause)).whenComplete((v, cut) -> {
                if (cut != null) {
                    next(step, false, cause, sentAt);
                } else {
                    write(step, sentAt, tried + 1);
                }
            });
        });
    }

    private void next(Ending.Write<T> step, boolean written, Throwable failure, long sentAt) {
        Ending<T> following;
        try {
            following = step.next(written, failure, sentAt);
        } catch (RuntimeException | Error e) {
            following = Ending.Answer.thrown(e);
        }
        carryOut(following);
    }

    /**
     * Runs a task of a held key on the renewal threads, where the held key's store calls run too
     * (never in the async executor's queue behind claims), else on the executor, else here: it must run.
     */
    private void onEngineThread(Runnable task) {
        try {
            parts.async().renewals().execute(task);
        } catch (RuntimeException refused) {
            try {
                executor.execute(task);
            } catch (RuntimeException alsoRefused) {
                task.run();
            }
        }
    }

    /** Answers the caller, after returning the slot (so a follow-up call in a callback finds it free). */
    private void answerWith(Result<T> result, Throwable failure) {
        active = false;
        returnSlot();
        if (failure != null) {
            answer.completeExceptionally(failure);
        } else {
            answer.complete(result);
        }
    }

    /** Nothing is under way for this call; if its answer is done (cancelled), it is over. */
    private void becameIdle() {
        active = false;
        if (answer.isDone()) {
            stopWaiting();
        }
    }

    private void stopWaiting() {
        Scheduler.Cancellable next = nextPoll;
        if (next != null) {
            // Cancelling a timer task may take the timer's lock: not on the canceller's thread, which
            // may be an event loop.
            onEngineThread(next::cancel);
        }
        returnSlot();
    }

    /** Frees this call's slot among the engine's {@code maxAsyncCalls}, once. */
    private void returnSlot() {
        if (!slotReturned && SLOT_RETURNED.compareAndSet(this, false, true)) {
            parts.async().release();
        }
    }

    /** The failure a stage stands for: derived stages wrap it in {@link CompletionException}. */
    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t == null || t instanceof Exception || t instanceof Error) {
            return t;
        }
        return new UndeclaredThrowableException(t);
    }
}
