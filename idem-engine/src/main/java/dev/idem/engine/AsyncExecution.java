package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous driver of one {@link Execution}: the same steps as the blocking call
 * (fingerprint, near cache, claim and judge, run, {@link Execution#finish finish}), so both end a
 * key alike and answer alike; only where they run and how they wait differ.
 *
 * <ul>
 *   <li>Every store call runs on the engine's async executor, never on the caller's thread; the
 *       fingerprint (CPU only) and a near-cache replay are done on the caller's.</li>
 *   <li>A duplicate that waits for an in-progress key claims again from a {@link Scheduler}
 *       task: no thread is parked meanwhile. Cancelling the answer while it waits stops the polls
 *       (nothing is held then).</li>
 *   <li>The work's stage is watched, not blocked on; while it is pending a {@link Heartbeat}
 *       extends the lease. Its outcome is handed back to the executor, where {@code finish}
 *       completes, stores the failure, or releases the key.</li>
 *   <li>Cancelling the answer once the key is claimed detaches the caller only: the work goes on
 *       and the record ends by the work's own outcome. A work stage that is itself cancelled may
 *       stand for an effect still under way, so the claim is kept and its lease lapses, as after
 *       a crash; the caller gets the {@link CancellationException}.</li>
 * </ul>
 * The answer completes with the very exception the blocking call would throw, never wrapped in
 * a {@link CompletionException}.
 */
final class AsyncExecution<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final IdempotencyEngine engine;
    private final IdempotencyKey key;
    private final Execution<T> execution;
    private final AsyncWork<? extends T> work;
    private final Executor executor;
    private final Scheduler scheduler;
    private final CompletableFuture<Result<T>> answer = new CompletableFuture<>();
    private final AtomicBoolean released = new AtomicBoolean();
    /** Whether the work was started: its end, not the answer, then frees the call's slot. */
    private volatile boolean running;
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

    CompletableFuture<Result<T>> start(Object request) {
        answer.whenComplete((r, e) -> {
            if (!running) {
                release();
            }
        });
        try {
            fingerprint = execution.fingerprint(request);
            execution.refuseIfSpent();
            Result<T> cached = execution.fromNearCache(fingerprint);
            if (cached != null) {
                answer.complete(cached);
                return answer;
            }
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
            return answer;
        }
        waiting = execution.new Waiting();
        submit(this::claim, false);
        return answer;
    }

    /** Runs {@code task} on the executor; a refusal fails the answer (the key's claim, if any, lapses). */
    private void submit(Runnable task, boolean holdsClaim) {
        try {
            executor.execute(task);
        } catch (RuntimeException e) {
            if (holdsClaim) {
                LOG.log(Level.WARNING, "the async executor refused to end the call for {0} ({1}); its claim is kept"
                        + " until the lease lapses", key, e.toString());
            }
            answer.completeExceptionally(new StoreUnavailableException("the engine's async executor refused the"
                    + " store call for " + key + ": " + e, e, true));
        }
    }

    private void claim() {
        if (answer.isDone()) {
            // The caller went away while it waited for a duplicate; nothing is held, so stop here.
            return;
        }
        long token = engine.nextToken();
        long beforeClaim = engine.ticker.read();
        ClaimResult claim;
        Execution.Verdict<T> verdict;
        try {
            claim = execution.claim(fingerprint, token);
            verdict = execution.judge(claim, fingerprint, waiting, beforeClaim);
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
            return;
        }
        if (verdict.claimed()) {
            if (execution.spent()) {
                answer.completeExceptionally(execution.refuseClaimed(claim));
                return;
            }
            run(claim, beforeClaim);
        } else if (verdict.replay != null) {
            answer.complete(verdict.replay);
        } else {
            try {
                scheduler.schedule(Duration.ofMillis(verdict.pauseMillis), () -> submit(this::claim, false));
            } catch (RuntimeException e) {
                // A scheduler that cannot wait is an interrupted wait: the blocking call's 409.
                RuntimeException conflict = verdict.conflict();
                conflict.addSuppressed(e);
                answer.completeExceptionally(conflict);
            }
        }
    }

    /** Frees this call's slot among the engine's {@code maxAsyncCalls}, once. */
    private void release() {
        if (released.compareAndSet(false, true)) {
            engine.async.release();
        }
    }

    private void run(ClaimResult claim, long beforeClaim) {
        running = true;
        StepContext ctx = execution.begin(claim, beforeClaim, null);
        Heartbeat heartbeat = new Heartbeat(engine, key, ctx, execution.lease(), engine.async.maxPending, executor,
                scheduler);
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
        heartbeat.start();
        stage.whenComplete((value, failure) -> submit(() -> end(ctx, heartbeat, value, unwrap(failure)), true));
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

    /** Decides how the key ends, on an executor thread (the stage may complete on an event loop). */
    private void end(StepContext ctx, Heartbeat heartbeat, T value, Throwable failure) {
        heartbeat.stop();
        ctx.close();
        release();
        if (failure instanceof CancellationException) {
            LOG.log(Level.WARNING, "the asynchronous work of {0} was cancelled; its effect may still be under way, so"
                    + " the claim is kept until its lease lapses (then a retry takes the key over)", key);
            answer.completeExceptionally(failure);
            return;
        }
        try {
            answer.complete(execution.finish(ctx, value, failure, fingerprint));
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
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
