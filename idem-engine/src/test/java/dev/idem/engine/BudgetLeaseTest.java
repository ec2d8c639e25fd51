package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a caller's deadline bears on leases: a call with 4 s left claims a 4 s lease instead of
 * the engine's 30 s, so a crashed caller's key frees by its budget, while a slow but live worker
 * keeps its key through a heartbeat, for as long as it would have without a deadline and never
 * longer. Two engines on one store stand for two processes; time is the store's simulated clock,
 * and a process's timer runs only while the test keeps that process alive.
 */
@Timeout(30)
class BudgetLeaseTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration BUDGET = Duration.ofSeconds(4);

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler timerA = new ManualScheduler(ClockTicker.of(clock));
    private final ManualScheduler timerB = new ManualScheduler(ClockTicker.of(clock));
    private final AtomicInteger runs = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    private final IdempotencyEngine a = engine(timerA);
    private final IdempotencyEngine b = engine(timerB);

    @AfterEach
    void stopThreads() {
        gate.countDown();
        threads.shutdownNow();
    }

    private IdempotencyEngine engine(ManualScheduler timer) {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).asyncExecutor(Runnable::run)
                .leaseRenewalExecutor(Runnable::run)
                .scheduler(timer).lease(LEASE).minBudgetLease(Duration.ofSeconds(1)).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private CallOptions budget() {
        return CallOptions.builder().deadline(Deadline.after(BUDGET, a.ticker())).build();
    }

    private String held(ExecutionContext ctx, Work<String> before) throws Exception {
        runs.incrementAndGet();
        if (before != null) {
            before.execute(ctx);
        }
        entered.countDown();
        assertThat(gate.await(20, TimeUnit.SECONDS)).isTrue();
        return "by-a";
    }

    /** Starts a blocking call on engine A whose work waits at the gate; returns once the work runs. */
    private Future<String> startOnA(String k, CallOptions options, Work<String> before) throws Exception {
        Future<String> call = threads.submit(() -> a.execute(key(k), "{}", String.class, options,
                ctx -> held(ctx, before)).value());
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        return call;
    }

    private Work<String> counted(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return value;
        };
    }

    /** Moves time in 1 s steps, running the timers of the processes that are alive. */
    private void live(Duration total, ManualScheduler... alive) {
        Duration step = Duration.ofSeconds(1);
        for (Duration passed = Duration.ZERO; passed.compareTo(total) < 0; passed = passed.plus(step)) {
            clock.advance(step);
            for (ManualScheduler t : alive) {
                t.runDue();
            }
        }
    }

    private Instant leaseOf(String k) {
        return store.find(key(k)).map(StoredRecord::leaseExpiresAt).orElseThrow();
    }

    @Test
    void aCallWithADeadlineClaimsALeaseOfTheTimeItsCallerHasLeft() throws Exception {
        Instant now = clock.instant();
        startOnA("short", budget(), null);

        assertThat(leaseOf("short")).isEqualTo(now.plus(BUDGET));
        gate.countDown();
    }

    @Test
    void aCrashedCallersKeyFreesByItsBudget() throws Exception {
        Future<String> dead = startOnA("crashed", budget(), null);

        // Process A is gone: its timer never runs again, so nothing renews its 4 s lease.
        live(BUDGET.plusSeconds(1), timerB);
        Result<String> taker = b.execute(key("crashed"), "{}", String.class, counted("by-b"));

        assertThat(taker.replayed()).isFalse();
        assertThat(taker.attempt()).isEqualTo(2);
        // Were A's work to return after all, its fenced completion is refused and B's outcome stands.
        gate.countDown();
        assertThatThrownBy(() -> dead.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LeaseLostException.class);
        assertThat(b.call(key("crashed"), "{}", String.class, counted("never"))).isEqualTo("by-b");
        assertThat(runs).hasValue(2);
    }

    @Test
    void withoutADeadlineTheSameCrashBlocksTheKeyForTheWholeLease() throws Exception {
        Future<String> dead = startOnA("no-budget", CallOptions.defaults(), null);

        live(BUDGET.plusSeconds(1), timerB);
        assertThatThrownBy(() -> b.execute(key("no-budget"), "{}", String.class, counted("x")))
                .isInstanceOf(RequestInProgressException.class);
        gate.countDown();
        assertThat(dead.get(10, TimeUnit.SECONDS)).isEqualTo("by-a");
    }

    @Test
    void aSlowButLiveWorkerKeepsItsKeyThroughItsHeartbeat() throws Exception {
        Future<String> slow = startOnA("slow", budget(), null);

        // Five budgets later, A's lease is still live: its heartbeat renewed it every third of 4 s.
        live(BUDGET.multipliedBy(5), timerA, timerB);
        assertThatThrownBy(() -> b.execute(key("slow"), "{}", String.class, counted("x")))
                .isInstanceOf(RequestInProgressException.class);
        assertThat(leaseOf("slow")).isAfter(clock.instant());

        gate.countDown();
        assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("by-a");
        assertThat(timerA.pending()).as("the heartbeat stopped with the work").isZero();
        assertThat(b.call(key("slow"), "{}", String.class, counted("never"))).isEqualTo("by-a");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aBlockingWorkersRenewalsNeverWaitBehindASaturatedAsyncExecutor() throws Exception {
        // Other callers' work fills the async executor's queue and never leaves it.
        List<Runnable> stuckInQueue = new CopyOnWriteArrayList<>();
        try (IdempotencyEngine c = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(stuckInQueue::add).leaseRenewalExecutor(Runnable::run).scheduler(timerA).lease(LEASE)
                .minBudgetLease(Duration.ofSeconds(1)).build()) {
            Future<String> slow = threads.submit(() -> c.execute(key("saturated"), "{}", String.class, budget(),
                    ctx -> held(ctx, null)).value());
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

            live(BUDGET.multipliedBy(5), timerA, timerB);
            assertThatThrownBy(() -> b.execute(key("saturated"), "{}", String.class, counted("x")))
                    .as("the live worker keeps its key").isInstanceOf(RequestInProgressException.class);
            assertThat(stuckInQueue).as("no renewal went into the async executor's queue").isEmpty();

            gate.countDown();
            assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("by-a");
            assertThat(runs).hasValue(1);
        }
    }

    /**
     * The work returns while a renewal of its lease is in the store: the call ends the key only
     * once that renewal answered, so no renewal lands after the key's ending (it could lengthen a
     * lease a hand-back cut short, or outlive the record). The caller waits for it on its own
     * thread, with no stage joined.
     */
    @Test
    void aBlockingCallEndsItsKeyOnlyAfterARenewalInFlightAnswered() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        CountDownLatch renewing = new CountDownLatch(1);
        CountDownLatch renewalMayAnswer = new CountDownLatch(1);
        IdempotencyStore slowRenewals = new ForwardingIdempotencyStore(store) {
            @Override
            public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
                renewing.countDown();
                try {
                    assertThat(renewalMayAnswer.await(20, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                Optional<Instant> until = super.extendLease(key, token, lease);
                calls.add("renewal answered");
                return until;
            }

            @Override
            public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                calls.add("complete");
                return super.complete(key, token, outcome, ttl);
            }
        };
        AtomicReference<Thread> returned = new AtomicReference<>();
        try (IdempotencyEngine c = IdempotencyEngine.builder().store(slowRenewals).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(threads).scheduler(timerA).lease(LEASE)
                .minBudgetLease(Duration.ofSeconds(1)).build()) {
            Future<String> slow = threads.submit(() -> c.execute(key("renewing"), "{}", String.class, budget(),
                    ctx -> {
                        String value = held(ctx, null);
                        returned.set(Thread.currentThread());
                        return value;
                    }).value());
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            // A third of the budget later the heartbeat's renewal goes to the store, and stays there.
            live(Duration.ofSeconds(2), timerA);
            assertThat(renewing.await(10, TimeUnit.SECONDS)).isTrue();

            gate.countDown();
            // The work returned; the caller then waits (for the renewal) or, if it did not, is done.
            long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((returned.get() == null || returned.get().getState() != Thread.State.WAITING)
                    && System.nanoTime() < bound) {
                Thread.sleep(1);
            }
            assertThat(calls).as("the work returned; its key is not ended while the renewal is out").isEmpty();
            renewalMayAnswer.countDown();

            assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("by-a");
            assertThat(calls).containsExactly("renewal answered", "complete");
        }
    }

    @Test
    void theHeartbeatKeepsTheKeyNoLongerThanTheCallsOwnLease() throws Exception {
        Future<String> stuck = startOnA("stuck", budget(), null);

        live(LEASE.minusSeconds(2), timerA, timerB);
        assertThatThrownBy(() -> b.execute(key("stuck"), "{}", String.class, counted("x")))
                .as("within the call's own lease").isInstanceOf(RequestInProgressException.class);
        live(BUDGET.plusSeconds(3), timerA, timerB);

        assertThat(timerA.pending()).as("the heartbeat gave up at the call's lease").isZero();
        assertThat(b.execute(key("stuck"), "{}", String.class, counted("by-b")).attempt()).isEqualTo(2);
        gate.countDown();
        assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LeaseLostException.class);
    }

    @Test
    void theHeartbeatNeverCutsShortALeaseTheWorkExtendedItself() throws Exception {
        Instant start = clock.instant();
        startOnA("extended", budget(), ctx -> {
            ctx.extendLease(Duration.ofMinutes(10));
            return null;
        });

        live(Duration.ofSeconds(20), timerA, timerB);

        assertThat(leaseOf("extended")).isEqualTo(start.plus(Duration.ofMinutes(10)));
        gate.countDown();
    }

    @Test
    void anAsynchronousCallsShorterLeaseIsKeptByItsHeartbeatAndLapsesWithItsProcess() throws Exception {
        CompletableFuture<String> kept = new CompletableFuture<>();
        CompletableFuture<String> lost = new CompletableFuture<>();
        Instant now = clock.instant();
        CompletableFuture<Result<String>> live = a.executeAsync(key("async-live"), "{}", String.class, budget(),
                ctx -> kept);
        IdempotencyEngine c = engine(new ManualScheduler(ClockTicker.of(clock)));
        CompletableFuture<Result<String>> dead = c.executeAsync(key("async-dead"), "{}", String.class,
                CallOptions.builder().deadline(Deadline.after(BUDGET, c.ticker())).build(), ctx -> lost);
        assertThat(leaseOf("async-live")).isEqualTo(now.plus(BUDGET));

        // A lives; the process of the second call (its timer never runs) does not.
        live(BUDGET.multipliedBy(3), timerA, timerB);

        assertThat(b.executeAsync(key("async-live"), "{}", String.class, ctx -> CompletableFuture.completedFuture(
                "x")).handle((r, e) -> e).get()).isInstanceOf(RequestInProgressException.class);
        assertThat(b.call(key("async-dead"), "{}", String.class, counted("by-b"))).isEqualTo("by-b");
        kept.complete("by-a");
        lost.complete("late");
        assertThat(live.get().value()).isEqualTo("by-a");
        assertThat(dead.handle((r, e) -> e).get()).isInstanceOf(LeaseLostException.class);
    }
}
