package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Every slot of {@code maxAsyncCalls} comes back, and only when nothing is under way for its call:
 * a caller cancelled while its claim is in the store, an application executor that refuses a task
 * at each point of a call. Deterministic: the executor is a queue this test drains on its own
 * thread (or runs inline), waits go through a {@link ManualScheduler} on the store's simulated clock.
 */
class AsyncSlotsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler scheduler = new ManualScheduler(ClockTicker.of(clock));
    private final AtomicInteger runs = new AtomicInteger();

    /** An executor whose tasks wait until the test runs them, or that refuses them once told to. */
    static final class QueuedExecutor implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        volatile boolean inline;
        volatile boolean refusing;

        @Override
        public synchronized void execute(Runnable task) {
            if (refusing) {
                throw new RejectedExecutionException("refused (test)");
            }
            if (inline) {
                task.run();
            } else {
                tasks.add(task);
            }
        }

        void drain() {
            for (;;) {
                Runnable next;
                synchronized (this) {
                    next = tasks.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private AsyncWork<String> pending(CompletableFuture<String> stage) {
        return ctx -> {
            runs.incrementAndGet();
            return stage;
        };
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        f.whenComplete((r, e) -> seen.set(e));
        assertThat(f).isDone();
        return seen.get();
    }

    @Test
    void aCallerCancelledWhileItsClaimIsInTheStoreKeepsItsSlotAndItsWorkNeverStarts() throws Exception {
        QueuedExecutor executor = new QueuedExecutor();
        Map<IdempotencyKey, CompletableFuture<Result<String>>> answers = new HashMap<>();
        List<CompletableFuture<Result<String>>> admittedMeanwhile = new ArrayList<>();
        AtomicReference<IdempotencyEngine> engineRef = new AtomicReference<>();
        FaultyStore store = new FaultyStore(memory) {
            @Override
            public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease,
                    Duration ttl) {
                CompletableFuture<Result<String>> answer = answers.remove(key);
                if (answer != null) {
                    // The caller goes away while its claim is in the store, and another caller arrives.
                    answer.cancel(true);
                    admittedMeanwhile.add(engineRef.get().executeAsync(key("other-" + key.key()), "{}",
                            String.class, pending(new CompletableFuture<>())));
                }
                return super.claim(key, fingerprint, token, lease, ttl);
            }
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(executor).leaseRenewalExecutor(executor).scheduler(scheduler).lease(LEASE)
                .maxAsyncCalls(4).build()) {
            engineRef.set(engine);
            for (int i = 0; i < 4; i++) {
                answers.put(key("k" + i), engine.executeAsync(key("k" + i), "{}", String.class,
                        pending(new CompletableFuture<>())));
            }
            executor.drain();

            assertThat(admittedMeanwhile).as("no slot is free while the cancelled callers' claims are in the store")
                    .hasSize(4).allSatisfy(f -> assertThat(failureOf(f)).isInstanceOf(AsyncCallsFullException.class));
            assertThat(runs).as("no work of a cancelled caller starts").hasValue(0);
            assertThat(engine.parts.async().inFlight()).as("every slot is back once the claims are given back").isZero();
            for (int i = 0; i < 4; i++) {
                assertThat(memory.find(key("k" + i)).map(StoredRecord::state))
                        .as("the key a cancelled caller won is given back at once").contains(RecordState.RELEASED);
            }
            executor.inline = true;
            CompletableFuture<String> stage = new CompletableFuture<>();
            CompletableFuture<Result<String>> retry = engine.executeAsync(key("k0"), "{}", String.class,
                    pending(stage));
            stage.complete("ch_0");
            assertThat(retry.get().value()).isEqualTo("ch_0");
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aCallerCancelledBetweenPollsStopsAndReturnsItsSlotAtOnce() throws Exception {
        QueuedExecutor executor = new QueuedExecutor();
        executor.inline = true;
        FaultyStore store = new FaultyStore(memory);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(executor).leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(LEASE)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20))).maxAsyncCalls(21).build()) {
            CompletableFuture<String> held = new CompletableFuture<>();
            engine.executeAsync(key("hot"), "{}", String.class, pending(held));
            List<CompletableFuture<Result<String>>> waiters = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                waiters.add(engine.executeAsync(key("hot"), "{}", String.class, pending(new CompletableFuture<>())));
            }
            clock.advance(Duration.ofSeconds(1));
            scheduler.runDue();
            waiters.forEach(w -> w.cancel(true));

            assertThat(engine.parts.async().inFlight()).as("only the holder's slot is taken").isEqualTo(1);
            int claims = store.claims.get();
            for (int i = 0; i < 10; i++) {
                clock.advance(Duration.ofSeconds(1));
                scheduler.runDue();
            }
            assertThat(store.claims.get()).as("cancelled waiters claim no more").isEqualTo(claims);
            held.complete("ch_hot");
            assertThat(runs).hasValue(1);
            assertThat(engine.parts.async().inFlight()).isZero();
        }
    }

    @Test
    void anExecutorThatRefusesToEndAClaimedKeyLosesNothing() throws Exception {
        QueuedExecutor executor = new QueuedExecutor();
        executor.inline = true;
        FaultyStore store = new FaultyStore(memory);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(executor).leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(LEASE)
                .build()) {
            CompletableFuture<String> stage = new CompletableFuture<>();
            CompletableFuture<Result<String>> answer = engine.executeAsync(key("r"), "{}", String.class,
                    pending(stage));
            executor.refusing = true;
            stage.complete("ch_r");

            assertThat(answer.get().value()).as("the outcome is stored and answered").isEqualTo("ch_r");
            assertThat(memory.find(key("r")).map(StoredRecord::state)).contains(RecordState.COMPLETED);
            assertThat(engine.parts.async().inFlight()).as("the slot is back").isZero();
            assertThat(scheduler.pending()).as("the heartbeat stopped").isZero();
            int extensions = store.extensions.get();
            clock.advance(LEASE.multipliedBy(2));
            scheduler.runDue();
            assertThat(store.extensions.get()).as("no renewal after the answer").isEqualTo(extensions);

            executor.refusing = false;
            Result<String> retry = engine.executeAsync(key("r"), "{}", String.class,
                    pending(CompletableFuture.completedFuture("twice"))).get();
            assertThat(retry.replayed()).isTrue();
            assertThat(retry.value()).isEqualTo("ch_r");
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void anExecutorThatRefusesAClaimOrAPollAnswers503AndHoldsNothing() throws Exception {
        QueuedExecutor executor = new QueuedExecutor();
        executor.inline = true;
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(memory).ticker(ClockTicker.of(clock))
                .asyncExecutor(executor).leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(LEASE)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20))).build()) {
            CompletableFuture<String> held = new CompletableFuture<>();
            engine.executeAsync(key("p"), "{}", String.class, pending(held));
            CompletableFuture<Result<String>> waiter = engine.executeAsync(key("p"), "{}", String.class,
                    pending(new CompletableFuture<>()));
            executor.refusing = true;
            CompletableFuture<Result<String>> refused = engine.executeAsync(key("q"), "{}", String.class,
                    pending(new CompletableFuture<>()));
            clock.advance(Duration.ofSeconds(1));
            scheduler.runDue();

            assertThat(failureOf(refused)).isInstanceOf(StoreUnavailableException.class);
            assertThat(memory.find(key("q"))).as("nothing claimed").isEmpty();
            assertThat(failureOf(waiter)).as("its next poll refused").isInstanceOf(StoreUnavailableException.class);
            assertThat(engine.parts.async().inFlight()).as("only the holder's slot").isEqualTo(1);
            executor.refusing = false;
            held.complete("ch_p");
            assertThat(engine.parts.async().inFlight()).isZero();
            assertThat(runs).hasValue(1);
        }
    }
}
