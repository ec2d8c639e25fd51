package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Scheduler;
import dev.idem.store.tck.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous runtime's threads over their life: the engine's own are daemons named for what
 * they do (so a thread dump says whose they are, and none keeps a JVM alive), renewals and their
 * timer are apart from claims and polls, closing shuts down exactly what the engine made (never
 * the builder's executor or scheduler) and refuses to make new ones, a pause completes on the
 * executor only after its delay, and the blocking lane keeps a quarter more slots for held keys on
 * top of its claims. Time is a hand-run scheduler; every wait is bounded.
 */
class AsyncRuntimeLifecycleTest {
    private static final Duration PENDING = Duration.ofMinutes(1);

    private static Thread runOn(Executor executor) throws Exception {
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        executor.execute(() -> ran.complete(Thread.currentThread()));
        return ran.get(10, TimeUnit.SECONDS);
    }

    private static Thread runOn(Scheduler scheduler) throws Exception {
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        Scheduler.Cancellable ignored = scheduler.schedule(Duration.ZERO, () -> ran.complete(Thread.currentThread()));
        return ran.get(10, TimeUnit.SECONDS);
    }

    @Test
    void theEnginesOwnThreadsAreDaemonsNamedForWhatTheyDo() throws Exception {
        AsyncRuntime runtime = new AsyncRuntime(null, null, null, PENDING, 4);
        try {
            Thread claims = runOn(runtime.executor());
            Thread renewals = runOn(runtime.renewals());
            Thread polls = runOn(runtime.scheduler());
            Thread beats = runOn(runtime.renewalTimer());
            assertThat(claims.getName()).startsWith("idem-async-").doesNotStartWith("idem-async-timer-");
            assertThat(renewals.getName()).startsWith("idem-lease-").doesNotStartWith("idem-lease-timer-");
            assertThat(polls.getName()).startsWith("idem-async-timer-");
            assertThat(beats.getName()).startsWith("idem-lease-timer-");
            for (Thread t : List.of(claims, renewals, polls, beats)) {
                assertThat(t.isDaemon()).as("%s never keeps a JVM alive", t.getName()).isTrue();
            }
            assertThat(runtime.executor()).as("made once").isSameAs(runtime.executor());
            assertThat(runtime.renewals()).isSameAs(runtime.renewals());
            assertThat(runtime.scheduler()).isSameAs(runtime.scheduler());
            assertThat(runtime.renewalTimer()).isSameAs(runtime.renewalTimer());
        } finally {
            runtime.close();
        }
    }

    @Test
    void closeShutsDownWhatTheEngineMadeAndMakesNothingNew() throws Exception {
        AsyncRuntime runtime = new AsyncRuntime(null, null, null, PENDING, 4);
        Executor claims = runtime.executor();
        Executor renewals = runtime.renewals();
        Scheduler polls = runtime.scheduler();
        Scheduler beats = runtime.renewalTimer();
        runOn(claims);
        runOn(renewals);
        runtime.close();

        assertThatThrownBy(() -> claims.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> renewals.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> polls.schedule(Duration.ZERO, () -> { }))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> beats.schedule(Duration.ZERO, () -> { }))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(runtime::executor).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(runtime::renewals).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(runtime::scheduler).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(runtime::renewalTimer).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(runtime.pause(Duration.ZERO)).isCompletedExceptionally();
    }

    @Test
    void aClosedRuntimeThatNeverMadeThreadsMakesNone() {
        AsyncRuntime runtime = new AsyncRuntime(null, null, null, PENDING, 4);
        runtime.close();
        assertThatThrownBy(runtime::executor).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(runtime::renewals).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theBuildersExecutorsAndSchedulerStayTheCallersAfterClose() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        ExecutorService renewals = Executors.newSingleThreadExecutor();
        ManualScheduler scheduler = new ManualScheduler(System::nanoTime);
        try {
            AsyncRuntime runtime = new AsyncRuntime(executor, renewals, scheduler, PENDING, 4);
            assertThat(runtime.renewalTimer()).as("heartbeats use the builder's scheduler").isSameAs(scheduler);
            runtime.close();
            assertThat(executor.isShutdown()).isFalse();
            assertThat(renewals.isShutdown()).isFalse();
            assertThat(runtime.executor()).isSameAs(executor);
            assertThat(runtime.renewals()).isSameAs(renewals);
            assertThat(runtime.scheduler()).isSameAs(scheduler);
            assertThat(runtime.renewalTimer()).isSameAs(scheduler);
        } finally {
            executor.shutdownNow();
            renewals.shutdownNow();
        }
    }

    @Test
    void aPauseCompletesOnTheExecutorOnceItsDelayPassed() {
        long[] now = {0};
        ManualScheduler timer = new ManualScheduler(() -> now[0]);
        List<Runnable> handedOver = new ArrayList<>();
        AsyncRuntime runtime = new AsyncRuntime(handedOver::add, Runnable::run, timer, PENDING, 4);

        CompletableFuture<Void> pause = runtime.pause(Duration.ofMillis(50));
        now[0] += TimeUnit.MILLISECONDS.toNanos(49);
        timer.runDue();
        assertThat(handedOver).isEmpty();
        now[0] += TimeUnit.MILLISECONDS.toNanos(1);
        timer.runDue();
        assertThat(pause).as("the timer's thread only hands over").isNotDone();
        assertThat(handedOver).hasSize(1);
        handedOver.get(0).run();
        assertThat(pause).isCompleted().isNotCompletedExceptionally();
    }

    @Test
    void aPauseTheExecutorOrTheSchedulerRefusesEndsExceptionallyNotNever() {
        ManualScheduler timer = new ManualScheduler(() -> 0L);
        AsyncRuntime refusingExecutor = new AsyncRuntime(task -> {
            throw new RejectedExecutionException("saturated");
        }, Runnable::run, timer, PENDING, 4);
        CompletableFuture<Void> pause = refusingExecutor.pause(Duration.ZERO);
        timer.runDue();
        assertThat(pause).isCompletedExceptionally();

        AsyncRuntime refusingScheduler = new AsyncRuntime(Runnable::run, Runnable::run, (d, task) -> {
            throw new RejectedExecutionException("timer shut down");
        }, PENDING, 4);
        assertThat(refusingScheduler.pause(Duration.ZERO)).isCompletedExceptionally();
    }

    @Test
    void slotsAreTakenUpToTheBoundAndGivenBack() {
        AsyncRuntime runtime = new AsyncRuntime(Runnable::run, Runnable::run, new ManualScheduler(() -> 0L),
                PENDING, 2);
        assertThat(runtime.acquire()).isTrue();
        assertThat(runtime.acquire()).isTrue();
        assertThat(runtime.acquire()).isFalse();
        assertThat(runtime.inFlight()).isEqualTo(2);
        runtime.release();
        assertThat(runtime.inFlight()).isEqualTo(1);
        assertThat(runtime.acquire()).isTrue();
    }

    @Test
    void theBlockingLaneKeepsAQuarterMoreSlotsForHeldKeysOnTopOfItsClaims() {
        StoreLane lane = AsyncRuntime.blockingLane(null);
        int claims = AsyncRuntime.laneWidth(null, AsyncRuntime.VIRTUAL_THREADS);
        int[] started = {0, 0};
        class Pending extends StoreLane.Call {
            Pending(boolean holdsClaim) {
                super(holdsClaim);
            }

            @Override
            void start() {
                started[holdsClaim ? 1 : 0]++;
            }
        }
        for (int i = 0; i < 2 * claims; i++) {
            lane.enter(new Pending(false));
        }
        assertThat(started[0]).as("claims under way at once").isEqualTo(claims);
        for (int i = 0; i < claims; i++) {
            lane.enter(new Pending(true));
        }
        assertThat(started[1]).as("held keys' calls on top of a full lane of claims").isEqualTo(claims / 4);
        assertThat(lane.running()).isEqualTo(claims + claims / 4);
    }
}
