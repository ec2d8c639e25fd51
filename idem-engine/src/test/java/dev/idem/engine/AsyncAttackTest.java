package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Attacks on the asynchronous call: the store failing at each of its calls in turn (the async
 * call must end a key as the blocking call does, differential against it), the engine's wall
 * clock stepped an hour while a duplicate waits, and a burst beyond {@code maxAsyncCalls}.
 * Deterministic: store calls run on the test's thread, waits on a {@link ManualScheduler}.
 */
class AsyncAttackTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    /** What the N-th store call does. */
    enum Fault {
        /** Fails before reaching the store, retryable. */
        TRANSIENT,
        /** Fails before reaching the store, not retryable. */
        PERMANENT,
        /** Reaches the store, then the reply is lost (a retryable timeout). */
        TIMEOUT_LANDED
    }

    /** A store whose N-th call (counting every operation) fails with a fault. */
    static final class NthCallStore extends ForwardingIdempotencyStore {
        private final int failAt;
        private final Fault fault;
        final AtomicInteger calls = new AtomicInteger();
        final List<String> log = new ArrayList<>();

        NthCallStore(IdempotencyStore delegate, int failAt, Fault fault) {
            super(delegate);
            this.failAt = failAt;
            this.fault = fault;
        }

        private <T> T call(String op, Supplier<T> call) {
            int n = calls.incrementAndGet();
            synchronized (log) {
                log.add(op);
            }
            if (n != failAt) {
                return call.get();
            }
            switch (fault) {
                case TRANSIENT:
                    throw new StoreUnavailableException("injected: " + op + " failed", null, true);
                case PERMANENT:
                    throw new StoreUnavailableException("injected: " + op + " refused", null, false);
                default:
                    call.get();
                    throw new StoreUnavailableException("injected: " + op + " timed out after landing", null, true);
            }
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            return switch (operation) {
                case PURGE_EXPIRED -> call.get();
                case EXTEND_LEASE -> call("extend", call);
                default -> call(operation.label(), call);
            };
        }
    }

    /** One client's run: its answers in order, the effects and how the record ended. */
    record Run(List<String> answers, int effects, RecordState status, int storeCalls) {
    }

    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant-1", "charge", "k-1");

    /**
     * A client that calls until its answer settles (a value, or "outcome not stored"), as a retrying
     * client would; a held key is waited out by moving the store's clock past the lease.
     */
    private static Run run(boolean async, int failAt, Fault fault) throws Exception {
        MutableClock clock = new MutableClock();
        NthCallStore store = new NthCallStore(MemoryIdempotencyStore.builder().clock(clock).build(), failAt, fault);
        ManualScheduler scheduler = new ManualScheduler(ClockTicker.of(clock));
        AtomicInteger effects = new AtomicInteger();
        List<String> answers = new ArrayList<>();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .clock(clock).sleeper(d -> clock.advance(d)).asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(scheduler)
                .lease(LEASE).build()) {
            for (int attempt = 0; attempt < 6; attempt++) {
                String answer;
                try {
                    Result<String> r;
                    if (async) {
                        CompletableFuture<String> stage = new CompletableFuture<>();
                        CompletableFuture<Result<String>> f = engine.executeAsync(KEY, "{}", String.class, ctx -> {
                            effects.incrementAndGet();
                            return stage;
                        });
                        stage.complete("ch_1");
                        assertThat(f).as("store calls ran on this thread; nothing waits").isDone();
                        r = f.join();
                    } else {
                        r = engine.execute(KEY, "{}", String.class, ctx -> {
                            effects.incrementAndGet();
                            return "ch_1";
                        });
                    }
                    answer = (r.replayed() ? "replayed " : "ran ") + r.value();
                } catch (java.util.concurrent.CompletionException e) {
                    answer = e.getCause().getClass().getSimpleName();
                } catch (RuntimeException e) {
                    answer = e.getClass().getSimpleName();
                }
                answers.add(answer);
                if (answer.startsWith("ran") || answer.startsWith("replayed")
                        || answer.equals(OutcomeNotStoredException.class.getSimpleName())) {
                    break;
                }
                if (answer.equals(RequestInProgressException.class.getSimpleName())) {
                    clock.advance(LEASE.plusSeconds(1));
                }
            }
            RecordState status = store.delegate().find(KEY).map(StoredRecord::state).orElse(null);
            return new Run(answers, effects.get(), status, store.calls.get());
        }
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void theStoreFailingAtEachCallEndsTheKeyAsTheBlockingCallDoes(Fault fault) throws Exception {
        Run clean = run(true, 0, fault);
        assertThat(clean.answers()).containsExactly("ran ch_1");
        assertThat(clean.effects()).isEqualTo(1);
        for (int n = 1; n <= clean.storeCalls() + 4; n++) {
            Run sync = run(false, n, fault);
            Run async = run(true, n, fault);

            assertThat(async).as("call %d failed with %s", n, fault).isEqualTo(sync);
            assertThat(async.effects()).as("call %d, %s: an effect runs again only if its outcome was lost", n, fault)
                    .isBetween(1, 2);
            assertThat(async.status()).isEqualTo(RecordState.COMPLETED);
            // Settled: the value, or (its outcome refused for good) the effect reported as not stored.
            assertThat(async.answers().get(async.answers().size() - 1)).matches("(ran|replayed) ch_1|"
                    + OutcomeNotStoredException.class.getSimpleName());
        }
    }

    @Test
    void aDuplicateWaitingWhileTheWallClockStepsAnHourEndsByItsTickerAndRunsNothing() throws Exception {
        MutableClock storeClock = new MutableClock();
        AtomicReference<Instant> wall = new AtomicReference<>(storeClock.instant());
        Clock engineWall = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return wall.get();
            }
        };
        ManualScheduler scheduler = new ManualScheduler(ClockTicker.of(storeClock));
        AtomicInteger runs = new AtomicInteger();
        try (IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.builder().clock(storeClock).build()).ticker(ClockTicker.of(storeClock))
                .clock(engineWall).asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(LEASE)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(10))).build()) {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<Result<String>> first = engine.executeAsync(KEY, "{}", String.class, ctx -> {
                runs.incrementAndGet();
                return work;
            });
            CompletableFuture<Result<String>> waiting = engine.executeAsync(KEY, "{}", String.class, ctx -> {
                runs.incrementAndGet();
                return CompletableFuture.completedFuture("twice");
            });
            Instant start = storeClock.instant();
            for (int i = 0; i < 200 && !waiting.isDone(); i++) {
                // An hour forward, then an hour back: the wait is measured on the ticker only.
                wall.set(wall.get().plus(Duration.ofHours(i % 2 == 0 ? 1 : -1)));
                storeClock.advance(scheduler.nextDue().orElseThrow());
                scheduler.runDue();
            }
            assertThat(waiting).isCompletedExceptionally();
            assertThat(AsyncCall.unwrap(waiting.handle((r, e) -> e).join()))
                    .isInstanceOf(RequestInProgressException.class);
            // Neither an hour forward ended it early nor an hour back kept it going.
            assertThat(Duration.between(start, storeClock.instant())).isBetween(Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            work.complete("ch_1");
            CompletableFuture<Result<String>> late = engine.executeAsync(KEY, "{}", String.class, ctx -> CompletableFuture.completedFuture("x"));
            assertThat(first.join().value()).isEqualTo("ch_1");
            assertThat(late.join().replayed()).isTrue();
            assertThat(late.join().value()).isEqualTo("ch_1");
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aBurstBeyondMaxAsyncCallsIsRefusedWithATypedErrorAndRunsNothing() throws Exception {
        MutableClock clock = new MutableClock();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        AtomicInteger runs = new AtomicInteger();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(new ManualScheduler(ClockTicker.of(clock))).lease(LEASE)
                .maxAsyncCalls(2).build()) {
            List<CompletableFuture<String>> works = List.of(new CompletableFuture<>(), new CompletableFuture<>());
            List<CompletableFuture<Result<String>>> pending = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                CompletableFuture<String> w = works.get(i);
                pending.add(engine.executeAsync(IdempotencyKey.of("t", "op", "k" + i), "{}", String.class, ctx -> {
                    runs.incrementAndGet();
                    return w;
                }));
            }
            // A cancelled caller's work still runs: its slot is held until the work ends.
            assertThat(pending.get(0).cancel(false)).isTrue();
            CompletableFuture<Result<String>> refused = engine.executeAsync(IdempotencyKey.of("t", "op", "k2"), "{}",
                    String.class, ctx -> {
                        runs.incrementAndGet();
                        return CompletableFuture.completedFuture("x");
                    });

            assertThat(refused).isCompletedExceptionally();
            Throwable e = refused.handle((r, t) -> t).join();
            assertThat(e).isInstanceOfSatisfying(AsyncCallsFullException.class, full -> {
                assertThat(full.limit()).isEqualTo(2);
                assertThat(full.httpStatus()).isEqualTo(503);
            });
            assertThat(store.find(IdempotencyKey.of("t", "op", "k2"))).isEmpty();
            assertThat(runs).hasValue(2);

            works.get(0).complete("done 0");
            CompletableFuture<Result<String>> admitted = engine.executeAsync(IdempotencyKey.of("t", "op", "k3"), "{}",
                    String.class, ctx -> CompletableFuture.completedFuture("ok"));
            assertThat(admitted.join().value()).isEqualTo("ok");
            assertThat(store.find(IdempotencyKey.of("t", "op", "k0")).orElseThrow().state())
                    .isEqualTo(RecordState.COMPLETED);
            works.get(1).complete("done 1");
            assertThat(engine.parts.async().inFlight()).isZero();
        }
    }
}
