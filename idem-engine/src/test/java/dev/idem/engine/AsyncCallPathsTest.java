package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Scheduler;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.protection.KeyRing;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous call at the points where a caller, the executors or the store act between two
 * of its steps: a caller that cancels while its poll falls due, is scheduled, or is in the store
 * gets its slot back and leaves nothing on the timer; a scheduler that cannot wait is the blocking
 * call's 409; a shared poll that fails answers every waiter of it; a renewal in flight when the work
 * ends is answered before the outcome is written; a completion is tried exactly
 * {@code completeAttempts} times, and not again after an interrupted pause; refusing executors never
 * lose an ending; a step after the work's stage completed is refused; a near-cache replay is
 * reported like a stored one; a record whose fingerprint secret is no longer provided is the
 * blocking call's typed error, whether the key is in progress or completed. Deterministic: executors are queues this test runs on its own thread
 * (or inline), waits go through a {@link ManualScheduler} on the store's simulated clock, and a
 * second engine on the same store stands for the process that holds the key.
 */
class AsyncCallPathsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant-1", "create-charge", "k-1");

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final ManualScheduler timer = new ManualScheduler(ClockTicker.of(clock));
    private final ManualScheduler holderTimer = new ManualScheduler(ClockTicker.of(clock));
    private final Tasks executor = new Tasks();
    private final AtomicInteger runs = new AtomicInteger();
    /** The other process's engine, once {@link #holdTheKey()} made it. */
    private IdempotencyEngine holder;

    @AfterEach
    void closeHolder() {
        if (holder != null) {
            holder.close();
        }
    }

    /** An executor whose tasks wait until the test runs them (one, or all), or that refuses them. */
    static final class Tasks implements Executor {
        private final List<Runnable> queue = new ArrayList<>();
        volatile boolean refusing;
        volatile boolean inline;

        @Override
        public void execute(Runnable task) {
            if (refusing) {
                throw new RejectedExecutionException("refused (test)");
            }
            if (inline) {
                task.run();
                return;
            }
            synchronized (this) {
                queue.add(task);
            }
        }

        synchronized int queued() {
            return queue.size();
        }

        /** Runs the {@code i}-th queued task (0 is the oldest). */
        void run(int i) {
            Runnable task;
            synchronized (this) {
                task = queue.remove(i);
            }
            task.run();
        }

        void runAll() {
            while (queued() > 0) {
                run(0);
            }
        }
    }

    /** Another process's engine on the same store, holding {@link #KEY} with work that never ends. */
    private void holdTheKey() {
        holder = IdempotencyEngine.builder().store(memory).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(holderTimer).lease(LEASE)
                .build();
        holder.executeAsync(KEY, "{}", String.class, ctx -> new CompletableFuture<>());
        assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.IN_PROGRESS);
    }

    /** This engine, whose callers of a key in progress wait up to 20 s. */
    private IdempotencyEngineBuilder waiting() {
        return waiting(timer);
    }

    private IdempotencyEngineBuilder waiting(Scheduler scheduler) {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).asyncExecutor(executor)
                .leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(LEASE)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20)));
    }

    private AsyncWork<String> counted(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(value);
        };
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        f.whenComplete((r, e) -> seen.set(e));
        assertThat(f).isDone();
        return seen.get();
    }

    @Test
    void aCallerThatCancelsAsItsPollFallsDueClaimsNothingAndGetsItsSlotBack() {
        holdTheKey();
        try (IdempotencyEngine engine = waiting().build()) {
            CompletableFuture<Result<String>> waiter = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            executor.runAll();
            assertThat(timer.pending()).as("its next poll").isEqualTo(1);
            int claims = store.claims.get();
            clock.advance(Duration.ofSeconds(1));
            timer.runDue();
            assertThat(executor.queued()).as("the poll handed to the executor").isEqualTo(1);

            waiter.cancel(true);
            executor.runAll();
            assertThat(store.claims.get()).as("no claim for a caller that went away").isEqualTo(claims);
            assertThat(engine.parts.async().inFlight()).as("its slot is back").isZero();
            assertThat(timer.pending()).isZero();
            assertThat(runs).hasValue(0);
        }
    }

    @Test
    void aCallerThatCancelsWhileItsNextPollIsInTheStoreStopsWhenTheKeyIsStillInProgress() {
        holdTheKey();
        try (IdempotencyEngine engine = waiting().build()) {
            CompletableFuture<Result<String>> waiter = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            executor.runAll();
            clock.advance(Duration.ofSeconds(1));
            timer.runDue();
            executor.run(0);
            assertThat(executor.queued()).as("its claim, waiting for the executor").isEqualTo(1);
            int claims = store.claims.get();

            waiter.cancel(true);
            executor.runAll();
            assertThat(store.claims.get()).isEqualTo(claims + 1);
            assertThat(engine.parts.async().inFlight()).as("its slot is back").isZero();
            assertThat(timer.pending()).as("no further poll").isZero();
            assertThat(executor.queued()).isZero();
            assertThat(runs).hasValue(0);
        }
    }

    @Test
    void aCallerThatCancelsWhileItsPollIsBeingScheduledLeavesNothingOnTheTimer() {
        holdTheKey();
        try (IdempotencyEngine engine = waiting().build()) {
            CompletableFuture<Result<String>> waiter = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            executor.run(0);
            assertThat(executor.queued()).as("the scheduling of its next poll").isEqualTo(1);

            waiter.cancel(true);
            assertThat(engine.parts.async().inFlight()).as("its slot is back at once").isZero();
            executor.runAll();
            assertThat(timer.pending()).as("the poll scheduled meanwhile is cancelled").isZero();
        }
    }

    @Test
    void cancellingAWaitingCallTakesItsPollOffTheTimer() {
        executor.inline = true;
        holdTheKey();
        try (IdempotencyEngine engine = waiting().build()) {
            CompletableFuture<Result<String>> waiter = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            assertThat(timer.pending()).isEqualTo(1);
            waiter.cancel(true);
            assertThat(timer.pending()).isZero();
            assertThat(engine.parts.async().inFlight()).isZero();
        }
    }

    @Test
    void aSchedulerThatCannotWaitIsTheBlockingCallsConflict() {
        RejectedExecutionException down = new RejectedExecutionException("timer shut down");
        executor.inline = true;
        holdTheKey();
        try (IdempotencyEngine engine = waiting((d, task) -> {
            throw down;
        }).build()) {
            CompletableFuture<Result<String>> waiter = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            assertThat(failureOf(waiter)).isInstanceOf(RequestInProgressException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(down));
            assertThat(engine.parts.async().inFlight()).isZero();
            assertThat(runs).hasValue(0);
        }
    }

    @Test
    void aSharedPollWhoseClaimFailsAnswersEveryWaiterOfIt() {
        holdTheKey();
        try (IdempotencyEngine engine = waiting().build()) {
            CompletableFuture<Result<String>> first = engine.executeAsync(KEY, "{}", String.class, counted("x"));
            executor.runAll();
            CompletableFuture<Result<String>> second = engine.executeAsync(KEY, "{}", String.class, counted("y"));
            executor.runAll();
            assertThat(timer.pending()).as("both wait").isEqualTo(2);

            store.claimDown = true;
            clock.advance(Duration.ofSeconds(1));
            timer.runDue();
            executor.run(0);
            executor.run(0);
            assertThat(executor.queued()).as("one claim for both").isEqualTo(1);
            int claims = store.claims.get();
            executor.runAll();

            assertThat(store.claims.get()).isEqualTo(claims + 1);
            assertThat(failureOf(first)).isInstanceOf(StoreUnavailableException.class);
            assertThat(failureOf(second)).isInstanceOf(StoreUnavailableException.class);
            assertThat(engine.parts.async().inFlight()).isZero();
            assertThat(runs).hasValue(0);
        }
    }

    @Test
    void aRenewalInFlightWhenTheWorkEndsIsAnsweredBeforeTheOutcomeIsWritten() throws Exception {
        Tasks renewals = new Tasks();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(renewals).scheduler(timer).lease(LEASE).build()) {
            CompletableFuture<String> stage = new CompletableFuture<>();
            CompletableFuture<Result<String>> answer = engine.executeAsync(KEY, "{}", String.class, ctx -> stage);
            clock.advance(LEASE.dividedBy(3));
            timer.runDue();
            assertThat(renewals.queued()).as("the renewal, waiting for a renewal thread").isEqualTo(1);

            stage.complete("ch_1");
            assertThat(renewals.queued()).as("and the work's end").isEqualTo(2);
            renewals.run(1);
            assertThat(answer).as("the outcome waits for the renewal in flight").isNotDone();
            assertThat(store.completes).hasValue(0);

            renewals.runAll();
            assertThat(store.extensions).hasValue(1);
            assertThat(store.completes).hasValue(1);
            assertThat(answer.get(10, TimeUnit.SECONDS).value()).isEqualTo("ch_1");
            assertThat(answer.get(10, TimeUnit.SECONDS).stored()).isTrue();
            assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.COMPLETED);
            assertThat(timer.pending()).as("no beat after the end").isZero();
        }
    }

    @Test
    void aCompletionIsTriedExactlyCompleteAttemptsTimesWithADoublingPause() throws Exception {
        List<Long> sleeps = Collections.synchronizedList(new ArrayList<>());
        store.completeDown = true;
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
                .completeAttempts(3).sleeper(d -> sleeps.add(d.toMillis())).build()) {
            Result<String> r = engine.executeAsync(KEY, "{}", String.class, counted("ch_1")).get(10, TimeUnit.SECONDS);
            assertThat(r.value()).isEqualTo("ch_1");
            assertThat(r.stored()).isFalse();
            assertThat(store.completes).hasValue(3);
            assertThat(sleeps).containsExactly(50L, 100L);
        }
    }

    @Test
    void anInterruptedPauseBetweenCompletionTriesEndsTheRetries() throws Exception {
        store.completeDown = true;
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
                .completeAttempts(3).sleeper(d -> {
                    throw new InterruptedException("shutting down");
                }).build()) {
            CompletableFuture<Result<String>> answer = engine.executeAsync(KEY, "{}", String.class, counted("ch_1"));
            assertThat(answer.get(10, TimeUnit.SECONDS).value()).isEqualTo("ch_1");
            assertThat(answer.get(10, TimeUnit.SECONDS).stored()).isFalse();
            assertThat(store.completes).as("no try after the pause was cut short").hasValue(1);
            // The pause ran inline on this thread, which keeps the interrupt, as any engine thread would.
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aWorkEndTheRenewalThreadsRefuseRunsOnTheExecutorAndOneBothRefuseRunsWhereTheStageCompleted()
            throws Exception {
        Tasks renewals = new Tasks();
        renewals.refusing = true;
        executor.inline = true;
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(executor).leaseRenewalExecutor(renewals).scheduler(timer).lease(LEASE).build()) {
            CompletableFuture<String> first = new CompletableFuture<>();
            CompletableFuture<Result<String>> answer = engine.executeAsync(KEY, "{}", String.class, ctx -> first);
            first.complete("ch_1");
            assertThat(answer.get(10, TimeUnit.SECONDS).value()).isEqualTo("ch_1");
            assertThat(answer.get(10, TimeUnit.SECONDS).stored()).isTrue();

            IdempotencyKey other = IdempotencyKey.of("tenant-1", "create-charge", "k-2");
            CompletableFuture<String> second = new CompletableFuture<>();
            CompletableFuture<Result<String>> otherAnswer = engine.executeAsync(other, "{}", String.class,
                    ctx -> second);
            executor.refusing = true;
            second.complete("ch_2");
            assertThat(otherAnswer.get(10, TimeUnit.SECONDS).value()).isEqualTo("ch_2");
            assertThat(otherAnswer.get(10, TimeUnit.SECONDS).stored()).isTrue();
            assertThat(memory.find(other).map(StoredRecord::state)).contains(RecordState.COMPLETED);
            assertThat(engine.parts.async().inFlight()).isZero();
        }
    }

    @Test
    void aStepStartedAfterTheWorksStageCompletedIsRefused() throws Exception {
        AtomicReference<ExecutionContext> kept = new AtomicReference<>();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
                .build()) {
            assertThat(engine.executeAsync(KEY, "{}", String.class, ctx -> {
                kept.set(ctx);
                return CompletableFuture.completedFuture("ch_1");
            }).get(10, TimeUnit.SECONDS).value()).isEqualTo("ch_1");
            AtomicInteger effects = new AtomicInteger();
            assertThatThrownBy(() -> kept.get().step("late", Integer.class, effects::incrementAndGet))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("after the work ended");
            assertThat(effects).hasValue(0);
        }
    }

    @Test
    void aReplayFromTheNearCacheIsReportedLikeOneFromTheStore() throws Exception {
        List<IdempotencyEvent> events = Collections.synchronizedList(new ArrayList<>());
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
                .nearCache(16).listener(events::add).build()) {
            engine.executeAsync(KEY, "{}", String.class, counted("ch_1")).get(10, TimeUnit.SECONDS);
            int claims = store.claims.get();
            events.clear();
            Result<String> replay = engine.executeAsync(KEY, "{}", String.class, counted("ch_2")).get(10, TimeUnit.SECONDS);
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo("ch_1");
            assertThat(store.claims.get()).as("served from the near cache").isEqualTo(claims);
            assertThat(events).extracting(IdempotencyEvent::type).containsExactly(Type.REPLAY);
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aRecordKeyedUnderASecretNoLongerProvidedIsATypedErrorAndNothingRuns() {
        IdempotencyKey completed = IdempotencyKey.of("tenant-1", "create-charge", "k-2");
        try (IdempotencyEngine before = IdempotencyEngine.builder().store(memory).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(holderTimer).lease(LEASE)
                .keyedFingerprints(KeyRing.of(ProtectionFixture.secretKey("f1", 0x11))).build();
                IdempotencyEngine after = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                        .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
                        .keyedFingerprints(KeyRing.of(ProtectionFixture.secretKey("f2", 0x22))).build()) {
            before.executeAsync(KEY, "{}", String.class, ctx -> new CompletableFuture<>());
            before.executeAsync(completed, "{}", String.class, ctx -> CompletableFuture.completedFuture("ch_2"));
            assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.IN_PROGRESS);
            assertThat(memory.find(completed).map(StoredRecord::state)).contains(RecordState.COMPLETED);

            for (IdempotencyKey k : new IdempotencyKey[] {KEY, completed}) {
                CompletableFuture<Result<String>> answer = after.executeAsync(k, "{}", String.class, counted("x"));
                assertThat(failureOf(answer)).as("%s", k).isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
                            assertThat(e.keyId()).isEqualTo("f1");
                        });
            }
            assertThat(runs).hasValue(0);
            assertThat(after.parts.async().inFlight()).isZero();
        }
    }
}
