package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Blocking callers of one key in one engine, and the blocking call's own store writes: when the
 * shared poll a waiter issued fails, every blocking waiter of that poll gets the failure (none waits
 * forever); a waiter interrupted while it waits for another's poll gets the 409 its wait would have
 * ended in and keeps its interrupt; a step's journal write is tried exactly {@code completeAttempts}
 * times with a doubling pause; a call without a deadline starts no heartbeat (its work's lease is the
 * engine's). Two engines on one store stand for two processes; pauses advance the simulated clock
 * instead of sleeping, and every wait is bounded.
 */
class BlockingWaitersTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant-1", "create-charge", "k-1");
    private static final long WAIT_SECONDS = 10;

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler timer = new ManualScheduler(ClockTicker.of(clock));
    private final ExecutorService callers = Executors.newFixedThreadPool(2);
    private final List<Long> sleeps = Collections.synchronizedList(new ArrayList<>());

    /** The other process's engine, once {@link #holdTheKey()} made it. */
    private IdempotencyEngine holder;

    @AfterEach
    void stop() {
        callers.shutdownNow();
        if (holder != null) {
            holder.close();
        }
    }

    /** Another process's engine on the same store, holding {@link #KEY} with work that never ends. */
    private void holdTheKey() {
        holder = IdempotencyEngine.builder().store(memory).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run)
                .scheduler(new ManualScheduler(ClockTicker.of(clock))).lease(LEASE).build();
        holder.executeAsync(KEY, "{}", String.class, ctx -> new CompletableFuture<>());
        assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.IN_PROGRESS);
    }

    /** A store whose second claim waits at a gate (and then fails) until the test opens it. */
    private static final class GatedClaims extends FaultyStore {
        final CountDownLatch atGate = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        GatedClaims(MemoryIdempotencyStore memory) {
            super(memory);
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            if (claims.get() == 1) {
                atGate.countDown();
                try {
                    if (!open.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never opened the gate");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                claims.incrementAndGet();
                throw new StoreUnavailableException("connection reset (injected)", null, true);
            }
            return super.claim(key, fingerprint, token, lease, ttl);
        }
    }

    /** The engine whose blocking callers wait up to 20 s; a pause moves the clock instead of sleeping. */
    private IdempotencyEngine waiting(FaultyStore store) {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).scheduler(timer).lease(LEASE)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20))).sleeper(d -> clock.advance(d)).build();
    }

    private static void awaitWaiting(AtomicReference<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while ((thread.get() == null || thread.get().getState() != Thread.State.WAITING)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(thread.get()).isNotNull();
        assertThat(thread.get().getState()).as("waiting for the other caller's poll").isEqualTo(Thread.State.WAITING);
    }

    @Test
    void aSharedPollWhoseClaimFailsAnswersTheBlockingWaiterOfItToo() throws Exception {
        GatedClaims store = new GatedClaims(memory);
        holdTheKey();
        try (IdempotencyEngine engine = waiting(store)) {
            Future<Throwable> issuer = callers.submit(() -> catchThrowable(() ->
                    engine.execute(KEY, "{}", String.class, ctx -> "x")));
            assertThat(store.atGate.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("its second poll is in the store").isTrue();
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Throwable> waiter = callers.submit(() -> {
                waiterThread.set(Thread.currentThread());
                return catchThrowable(() -> engine.execute(KEY, "{}", String.class, ctx -> "y"));
            });
            awaitWaiting(waiterThread);
            store.open.countDown();

            assertThat(issuer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class);
            assertThat(waiter.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("connection reset");
            assertThat(store.claims).as("one claim for both").hasValue(2);
        }
    }

    @Test
    void aBlockingWaiterInterruptedWhileItWaitsForAnotherCallersPollGets409AndKeepsTheInterrupt() throws Exception {
        GatedClaims store = new GatedClaims(memory);
        holdTheKey();
        try (IdempotencyEngine engine = waiting(store)) {
            Future<Throwable> issuer = callers.submit(() -> catchThrowable(() ->
                    engine.execute(KEY, "{}", String.class, ctx -> "x")));
            assertThat(store.atGate.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Object[]> waiter = callers.submit(() -> {
                waiterThread.set(Thread.currentThread());
                Throwable thrown = catchThrowable(() -> engine.execute(KEY, "{}", String.class, ctx -> "y"));
                return new Object[] {thrown, Thread.interrupted()};
            });
            awaitWaiting(waiterThread);
            waiterThread.get().interrupt();
            Object[] seen = waiter.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat((Throwable) seen[0]).isInstanceOf(RequestInProgressException.class);
            assertThat(seen[1]).as("the interrupt is kept").isEqualTo(true);

            store.open.countDown();
            assertThat(issuer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    void aStepsJournalWriteIsTriedExactlyCompleteAttemptsTimesWithADoublingPause() {
        FaultyStore store = new FaultyStore(memory);
        store.checkpointFailure = new StoreUnavailableException("timed out", null, true);
        AtomicInteger effects = new AtomicInteger();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .scheduler(timer).lease(LEASE).completeAttempts(3).sleeper(d -> sleeps.add(d.toMillis())).build()) {
            Throwable thrown = catchThrowable(() -> engine.execute(KEY, "{}", String.class,
                    ctx -> ctx.step("charge", String.class, () -> "ch_" + effects.incrementAndGet())));
            assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
            assertThat(store.checkpoints).hasValue(3);
            assertThat(sleeps).containsExactly(50L, 100L);
            assertThat(effects).hasValue(1);
        }
    }

    @Test
    void aCallWithoutADeadlineRenewsNoLeaseWhileItsWorkRuns() {
        FaultyStore store = new FaultyStore(memory);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .scheduler(timer).leaseRenewalExecutor(Runnable::run).lease(LEASE).build()) {
            Result<String> r = engine.execute(KEY, "{}", String.class, ctx -> {
                assertThat(timer.pending()).as("no heartbeat").isZero();
                clock.advance(LEASE.dividedBy(2));
                timer.runDue();
                return "ch_1";
            });
            assertThat(r.stored()).isTrue();
            assertThat(store.extensions).hasValue(0);
        }
    }
}
