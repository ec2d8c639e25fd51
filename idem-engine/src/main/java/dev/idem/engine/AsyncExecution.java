package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The asynchronous driver of one {@link Execution}: the same steps as the blocking call
 * (fingerprint, near cache, claim and judge, run, {@link Execution#finish finish}), so both end a
 * key alike and answer alike; only where they run and how they wait differ.
 *
 * <ul>
 *   <li>Every store call goes through one of the engine's {@link StoreLane}s: onto its async
 *       executor, never on the caller's thread, for a blocking store; for a store that offers a
 *       {@link dev.idem.api.store.NonBlockingStore}, as a non-blocking call that holds no thread
 *       while the store answers (its answer is handed to the executor, never handled on the
 *       client's I/O thread). The fingerprint (CPU only), a near-cache replay and a replay of a
 *       poll another waiter just made are done on the caller's.</li>
 *   <li>A duplicate that waits for an in-progress key polls from a {@link Scheduler} task: no
 *       thread is parked meanwhile, and its claims are shared with the engine's other waiters of
 *       the key ({@link SharedPolls}), so a crowd of them sends one claim per poll interval.</li>
 *   <li>The work's stage is watched, not blocked on; from the claim on a {@link Heartbeat} extends
 *       the lease on the engine's renewal threads. The stage's outcome goes back through the lane
 *       (ahead of waiting claims), where {@code finish} completes, stores the failure, or releases
 *       the key.</li>
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
final class AsyncExecution<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(AsyncExecution.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final IdempotencyEngine engine;
    private final IdempotencyKey key;
    private final Execution<T> execution;
    private final AsyncWork<? extends T> work;
    private final Executor executor;
    private final Scheduler scheduler;
    private final CompletableFuture<Result<T>> answer = new CompletableFuture<>();
    /** Whether this call's slot was returned (through {@link #RELEASED}: once, whoever gets there first). */
    private volatile boolean released;
    /** Whether {@link #answer} is watched for a caller that cancels while this call waits for a poll. */
    private boolean watched;
    /**
     * Whether the engine does something for this call now (a claim in the store, the work, a
     * give-back): false only while it waits for its next poll. Its slot among the engine's
     * {@code maxAsyncCalls} is returned once the answer is done and this is false.
     */
    private volatile boolean busy = true;
    private volatile Scheduler.Cancellable nextPoll;
    private byte[] fingerprint;
    private Execution<T>.Waiting waiting;

    AsyncExecution(IdempotencyEngine engine, IdempotencyKey key, Execution<T> execution, AsyncWork<? extends T> work) {
        this.engine = engine;
        this.key = key;
        this.execution = execution;
        this.work = work;
        this.executor = engine.async.executor();
        this.scheduler = engine.async.scheduler();
    }

    /** Starts the call, which holds one of the engine's slots (taken by the caller) until it ends. */
    CompletableFuture<Result<T>> start(Object request) {
        try {
            fingerprint = execution.fingerprint(request);
            execution.refuseIfSpent();
            Result<T> cached = execution.fromNearCache(fingerprint);
            if (cached != null) {
                done(cached, null);
                return answer;
            }
        } catch (RuntimeException | Error e) {
            done(null, e);
            return answer;
        }
        waiting = execution.new Waiting();
        poll();
        return answer;
    }

    /** Claims the key: its own claim, or, if the call waits, its share of the key's poll. */
    private void poll() {
        if (answer.isDone()) {
            idle();
            return;
        }
        long token = engine.nextToken();
        long beforeClaim = engine.ticker.read();
        if (!execution.waits()) {
            storeClaim(token, (claim, failure) -> judged(claim, failure, beforeClaim));
            return;
        }
        SharedPolls.Ticket ticket = engine.polls.join(key, false);
        if (ticket.issuer()) {
            storeClaim(token, (claim, failure) -> {
                if (failure != null) {
                    ticket.fail(failure);
                } else {
                    ticket.answer(claim);
                }
                judged(claim, failure, beforeClaim);
            });
            return;
        }
        CompletableFuture<ClaimResult> shared = ticket.answer();
        if (shared.isDone() || !ticket.poll.blockingIssuer) {
            shared.whenComplete((claim, failure) -> judgedShared(ticket, claim, failure));
        } else {
            // Answered on a blocking caller's thread: go on on the executor, not on that thread.
            shared.whenComplete((claim, failure) -> hop(() -> judgedShared(ticket, claim, failure)));
        }
    }

    /**
     * The one claim this call sends to the store, non-blocking if the store offers it; {@code then}
     * gets its answer or its (unwrapped) failure.
     */
    private void storeClaim(long token, BiConsumer<ClaimResult, Throwable> then) {
        if (engine.nonBlocking != null) {
            unwrapped(execution.claimNonBlocking(fingerprint, token), then);
            return;
        }
        engine.async.lane.call(false, () -> execution.claim(fingerprint, token), then);
    }

    /**
     * A write that ends the key, through the non-blocking lane or on the blocking lane's threads;
     * {@code then} gets its result or its (unwrapped) failure.
     */
    private <R> void ending(Function<StoreWrites, CompletableFuture<R>> body, BiConsumer<? super R, Throwable> then) {
        if (engine.nonBlocking != null) {
            CompletableFuture<R> write;
            try {
                write = body.apply(execution.writes());
            } catch (RuntimeException | Error e) {
                write = CompletableFuture.failedFuture(e);
            }
            unwrapped(write, then);
            return;
        }
        engine.async.lane.call(true, () -> StoreWrites.join(body.apply(execution.writes())), then);
    }

    /** Hands a stage's outcome to {@code then} as the blocking lane does: the failure unwrapped. */
    private static <R> void unwrapped(CompletableFuture<R> stage, BiConsumer<? super R, Throwable> then) {
        stage.whenComplete((value, failure) -> then.accept(value, failure == null ? null : unwrap(failure)));
    }

    /** Judges another waiter's claim, which this call cannot have won. */
    private void judgedShared(SharedPolls.Ticket ticket, ClaimResult claim, Throwable failure) {
        // Counted from when the poll's question left, which may be before this call joined it.
        judged(failure == null ? ticket.seen(claim) : null, failure, ticket.poll.sentAt);
    }

    private void judged(ClaimResult claim, Throwable failure, long beforeClaim) {
        if (failure != null) {
            done(null, unwrap(failure));
            return;
        }
        Execution.Verdict<T> verdict;
        try {
            verdict = execution.judge(claim, fingerprint, waiting, beforeClaim);
        } catch (RuntimeException | Error e) {
            done(null, e);
            return;
        }
        if (verdict.claimed()) {
            if (answer.isDone()) {
                giveBack(claim, beforeClaim);
            } else if (execution.spent()) {
                refuseSpent(claim);
            } else {
                run(claim, beforeClaim);
            }
        } else if (verdict.replay != null) {
            done(verdict.replay, null);
        } else {
            waitFor(verdict);
        }
    }

    /** Schedules the next poll; the call holds nothing meanwhile. */
    private void waitFor(Execution.Verdict<T> verdict) {
        busy = false;
        if (!watched) {
            // From the first wait on (not before: most calls never wait), a caller that cancels (or
            // completes) the answer between polls stops the wait and returns the slot at once.
            watched = true;
            answer.whenComplete((r, e) -> {
                if (!busy) {
                    stopWaiting();
                }
            });
        }
        if (answer.isDone()) {
            stopWaiting();
            return;
        }
        try {
            Scheduler.Cancellable next = scheduler.schedule(Duration.ofMillis(verdict.pauseMillis), this::wake);
            nextPoll = next;
            if (answer.isDone()) {
                // Cancelled while this was being scheduled: the cancel saw no poll to stop.
                next.cancel();
            }
        } catch (RuntimeException e) {
            // A scheduler that cannot wait is an interrupted wait: the blocking call's 409.
            RuntimeException conflict = verdict.conflict();
            conflict.addSuppressed(e);
            done(null, conflict);
        }
    }

    private void wake() {
        busy = true;
        if (answer.isDone()) {
            idle();
            return;
        }
        // The scheduler's thread only hands over: the poll may judge and decode on the executor.
        hop(this::poll);
    }

    private void hop(Runnable task) {
        try {
            executor.execute(task);
        } catch (RuntimeException e) {
            done(null, new StoreUnavailableException("the engine's async executor refused the poll of " + key
                    + ": " + e, e, true));
        }
    }

    /** The caller went away while its claim was in the store, and the claim won: give the key back unrun. */
    private void giveBack(ClaimResult claim, long beforeClaim) {
        ending(writes -> execution.giveBackUnstarted(claim, beforeClaim, writes), (v, e) -> idle());
    }

    /** The caller's deadline passed while its claim was being won: give the key back unrun, through the lane. */
    private void refuseSpent(ClaimResult claim) {
        engine.async.lane.call(true, () -> {
            try {
                return execution.refuseClaimed(claim);
            } finally {
                engine.polls.forget(key);
            }
        }, (refused, e) -> done(null, e == null ? refused : e));
    }

    private void run(ClaimResult claim, long beforeClaim) {
        StepContext ctx = execution.begin(claim, beforeClaim, null);
        Heartbeat heartbeat = new Heartbeat(engine, key, ctx, execution.lease(), engine.async.maxPending,
                engine.async.renewalThreads, engine.async.renewalTimer(), engine.nonBlocking != null);
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
            end(ctx, heartbeat, null, e);
            return;
        }
        stage.whenComplete((value, failure) -> end(ctx, heartbeat, value, unwrap(failure)));
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

    /** Ends the key by the work's outcome, through the lane ahead of waiting claims (the stage may complete on an event loop). */
    private void end(StepContext ctx, Heartbeat heartbeat, T value, Throwable failure) {
        // Once no renewal is in flight: none may lengthen a lease the ending cuts short (a hand-back).
        CompletableFuture<Void> extending = heartbeat.stop();
        if (extending == null) {
            endKey(ctx, value, failure);
        } else {
            extending.whenComplete((v, stopFailure) -> endKey(ctx, value, failure));
        }
    }

    private void endKey(StepContext ctx, T value, Throwable failure) {
        if (engine.nonBlocking == null) {
            // The blocking lane runs the ending on the executor itself.
            ending(writes -> finish(ctx, value, failure, writes), this::ended);
        } else {
            // Not on the thread that completed the work's stage (an application's event loop, maybe).
            holding(() -> ending(writes -> finish(ctx, value, failure, writes), this::ended));
        }
    }

    /** The key's ending was stored (or failed): no poll of it is worth sharing any more; answer the caller. */
    private void ended(Result<T> result, Throwable failure) {
        engine.polls.forget(key);
        done(result, failure);
    }

    /** Runs a task of a claimed key on the executor, else the renewal threads, else here: it must run. */
    private void holding(Runnable task) {
        try {
            executor.execute(task);
        } catch (RuntimeException refused) {
            try {
                engine.async.renewals().execute(task);
            } catch (RuntimeException alsoRefused) {
                task.run();
            }
        }
    }

    private CompletableFuture<Result<T>> finish(StepContext ctx, T value, Throwable failure, StoreWrites writes) {
        ctx.close();
        if (failure instanceof CancellationException) {
            LOG.log(Level.WARNING, "the asynchronous work of {0} was cancelled; its effect may still be under way,"
                    + " so the claim is kept until its lease lapses (then a retry takes the key over)", key.digest());
            return CompletableFuture.failedFuture(failure);
        }
        return execution.finish(ctx, value, failure, fingerprint, writes);
    }

    /** Answers the caller, after returning the slot (so a follow-up call in a callback finds it free). */
    private void done(Result<T> result, Throwable failure) {
        busy = false;
        release();
        if (failure != null) {
            answer.completeExceptionally(failure);
        } else {
            answer.complete(result);
        }
    }

    /** Nothing is under way for this call; if its answer is done (cancelled), it is over. */
    private void idle() {
        busy = false;
        if (answer.isDone()) {
            stopWaiting();
        }
    }

    private void stopWaiting() {
        Scheduler.Cancellable next = nextPoll;
        if (next != null) {
            next.cancel();
        }
        release();
    }

    /** Frees this call's slot among the engine's {@code maxAsyncCalls}, once. */
    private void release() {
        if (!released && RELEASED.compareAndSet(this, false, true)) {
            engine.async.release();
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
