package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.DeadlineExceededException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Deadline;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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
 * A caller's deadline ({@link CallOptions#deadline()}) on the blocking and the asynchronous call:
 * spent before the claim, running out during the claim, the work and the completion, bounding a
 * waiting duplicate, and seen by the work. Time is the store's simulated clock; the engine's
 * sleeper moves it, and its timer runs only when the test says so.
 */
@Timeout(30)
class CallDeadlineTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock();
    private final AtomicReference<Duration> passDuringClaim = new AtomicReference<>();
    private final AtomicReference<Duration> passDuringComplete = new AtomicReference<>();
    private final FaultyStore store = new FaultyStore(MemoryIdempotencyStore.builder().clock(clock).build()) {
        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            ClaimResult r = super.claim(key, fingerprint, token, lease, ttl);
            pass(passDuringClaim.getAndSet(null));
            return r;
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            pass(passDuringComplete.getAndSet(null));
            return super.complete(key, token, outcome, ttl);
        }
    };
    private final ManualScheduler timer = new ManualScheduler(ClockTicker.of(clock));
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
            .sleeper(d -> clock.advance(d)).asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(timer).lease(LEASE)
            .listener(events::add).build();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private void pass(Duration d) {
        if (d != null) {
            clock.advance(d);
        }
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private CallOptions within(Duration budget) {
        return CallOptions.builder().deadline(Deadline.after(budget, engine.ticker())).build();
    }

    private Work<String> counted(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return value;
        };
    }

    private AsyncWork<String> countedAsync(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(value);
        };
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        assertThat(f).isDone();
        return f.handle((r, e) -> e).join();
    }

    @Test
    void aSpentDeadlineIsRefusedBeforeTheClaimAndStoresNothing() {
        CallOptions spent = within(Duration.ZERO);

        assertThatThrownBy(() -> engine.execute(key("spent"), "{}", String.class, spent, counted("x")))
                .isInstanceOf(DeadlineExceededException.class).hasMessageContaining("nothing was stored")
                .satisfies(e -> assertThat(((DeadlineExceededException) e).httpStatus()).isEqualTo(504));
        assertThat(failureOf(engine.executeAsync(key("spent"), "{}", String.class, spent, countedAsync("x"))))
                .isInstanceOf(DeadlineExceededException.class);

        assertThat(store.claims).hasValue(0);
        assertThat(store.find(key("spent"))).isEmpty();
        assertThat(runs).hasValue(0);
        assertThat(events).extracting(IdempotencyEvent::type, IdempotencyEvent::attempt)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(IdempotencyEvent.Type.DEADLINE_EXCEEDED, 0));
        // Nothing is held: the same request with time left runs, once.
        assertThat(engine.call(key("spent"), "{}", String.class, counted("ok"))).isEqualTo("ok");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aDeadlineThatRunsOutDuringTheClaimGivesTheClaimBackAndRunsNothing() throws Exception {
        passDuringClaim.set(Duration.ofSeconds(3));
        assertThatThrownBy(() -> engine.execute(key("sync"), "{}", String.class, within(Duration.ofSeconds(2)),
                counted("x"))).isInstanceOf(DeadlineExceededException.class).hasMessageContaining("given back");
        passDuringClaim.set(Duration.ofSeconds(3));
        assertThat(failureOf(engine.executeAsync(key("async"), "{}", String.class, within(Duration.ofSeconds(2)),
                countedAsync("x")))).isInstanceOf(DeadlineExceededException.class);

        assertThat(runs).hasValue(0);
        for (String k : List.of("sync", "async")) {
            assertThat(store.find(key(k)).orElseThrow().state()).as(k).isEqualTo(RecordState.RELEASED);
            // Given back at once, not left to lapse: a retry runs now, and only it.
            Result<String> retry = engine.execute(key(k), "{}", String.class, within(Duration.ofSeconds(2)),
                    counted("ok-" + k));
            assertThat(retry.value()).isEqualTo("ok-" + k);
            assertThat(retry.replayed()).isFalse();
        }
        assertThat(runs).hasValue(2);
        assertThat(events).filteredOn(e -> e.type() == IdempotencyEvent.Type.DEADLINE_EXCEEDED)
                .extracting(IdempotencyEvent::attempt).containsExactly(1, 1);
    }

    @Test
    void aDeadlineThatRunsOutDuringTheWorkStillStoresAndReplaysItsOutcome() throws Exception {
        CallOptions budget = within(Duration.ofSeconds(2));
        Result<String> first = engine.execute(key("w"), "{}", String.class, budget, ctx -> {
            runs.incrementAndGet();
            clock.advance(Duration.ofSeconds(10));
            assertThat(ctx.deadline().orElseThrow().isExpired()).isTrue();
            return "late";
        });
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<Result<String>> async = engine.executeAsync(key("a"), "{}", String.class,
                within(Duration.ofSeconds(2)), ctx -> {
                    runs.incrementAndGet();
                    return stage;
                });
        clock.advance(Duration.ofSeconds(10));
        stage.complete("late-async");

        assertThat(first.value()).isEqualTo("late");
        assertThat(first.stored()).isTrue();
        assertThat(async.get().stored()).isTrue();
        assertThat(engine.call(key("w"), "{}", String.class, counted("never"))).isEqualTo("late");
        assertThat(engine.call(key("a"), "{}", String.class, counted("never"))).isEqualTo("late-async");
        assertThat(runs).hasValue(2);
    }

    @Test
    void aDeadlineThatRunsOutDuringTheCompletionNeverCutsItShort() throws Exception {
        passDuringComplete.set(Duration.ofSeconds(5));
        store.completeFailureOnce = new StoreUnavailableException("timeout (injected)", null, true);

        Result<String> r = engine.execute(key("c"), "{}", String.class, within(Duration.ofSeconds(1)), counted("v"));

        assertThat(r.stored()).as("the completion was retried after the deadline passed").isTrue();
        assertThat(store.completes).hasValue(2);
        assertThat(store.find(key("c")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(engine.execute(key("c"), "{}", String.class, within(Duration.ofSeconds(1)), counted("never"))
                .replayed()).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void aWaitingDuplicateAnswers409ByItsDeadlineNotByItsLongerWait() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Future<String> holder = threads.submit(() -> engine.call(key("held"), "{}", String.class, ctx -> {
            entered.countDown();
            assertThat(gate.await(20, TimeUnit.SECONDS)).isTrue();
            return "first";
        }));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        CallOptions waiting = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(10)))
                .deadline(Deadline.after(Duration.ofSeconds(2), engine.ticker())).build();
        long before = clock.millis();

        assertThatThrownBy(() -> engine.execute(key("held"), "{}", String.class, waiting, counted("x")))
                .isInstanceOf(RequestInProgressException.class)
                .satisfies(e -> assertThat(((RequestInProgressException) e).retryAfter()).isPositive());
        long waited = clock.millis() - before;

        CompletableFuture<Result<String>> async = engine.executeAsync(key("held"), "{}", String.class,
                CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(10)))
                        .deadline(Deadline.after(Duration.ofSeconds(2), engine.ticker())).build(),
                countedAsync("x"));
        long asyncStart = clock.millis();
        for (int polls = 0; !async.isDone() && polls < 1000; polls++) {
            clock.advance(timer.nextDue().orElseThrow());
            timer.runDue();
        }
        long asyncWaited = clock.millis() - asyncStart;
        gate.countDown();

        assertThat(waited).as("the blocking wait, in simulated ms").isBetween(2_000L, 2_500L);
        assertThat(failureOf(async)).isInstanceOf(RequestInProgressException.class);
        assertThat(asyncWaited).as("the asynchronous wait, in simulated ms").isBetween(2_000L, 2_500L);
        assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("first");
        assertThat(runs).hasValue(0);
    }

    @Test
    void theWorkSeesItsDeadlineAndBlockingWorkFindsItBoundToItsThread() throws Exception {
        Deadline deadline = Deadline.after(Duration.ofSeconds(7), engine.ticker());
        CallOptions options = CallOptions.builder().deadline(deadline).build();
        AtomicReference<Optional<Deadline>> seen = new AtomicReference<>();
        AtomicReference<Optional<Deadline>> bound = new AtomicReference<>();

        engine.execute(key("sees"), "{}", String.class, options, ctx -> {
            seen.set(ctx.deadline());
            bound.set(Deadline.current());
            return "v";
        });
        assertThat(seen.get()).containsSame(deadline);
        assertThat(bound.get()).containsSame(deadline);
        assertThat(Deadline.current()).as("unbound once the work returned").isEmpty();

        engine.executeAsync(key("sees-async"), "{}", String.class, options, ctx -> {
            bound.set(Deadline.current());
            return CompletableFuture.completedFuture("v");
        }).get();
        assertThat(bound.get()).as("bound while the asynchronous work starts").containsSame(deadline);
        assertThat(Deadline.current()).isEmpty();

        engine.execute(key("none"), "{}", String.class, ctx -> {
            seen.set(ctx.deadline());
            bound.set(Deadline.current());
            return "v";
        });
        assertThat(seen.get()).isEmpty();
        assertThat(bound.get()).isEmpty();
    }

    @Test
    void optionsSharedByManyCallsTakeADeadlinePerCall() {
        CallOptions shared = CallOptions.builder().ttl(Duration.ofHours(2)).lease(Duration.ofSeconds(20))
                .excludeFromFingerprint("/meta").build();
        Deadline deadline = Deadline.after(Duration.ofSeconds(3), engine.ticker());

        CallOptions one = shared.withDeadline(deadline);

        assertThat(one.deadline()).isSameAs(deadline);
        assertThat(one.ttl()).isEqualTo(shared.ttl());
        assertThat(one.lease()).isEqualTo(shared.lease());
        assertThat(one.excludedFromFingerprint()).isEqualTo(shared.excludedFromFingerprint());
        assertThat(shared.deadline()).isNull();
        assertThatThrownBy(() -> CallOptions.builder().deadline(deadline).deadline(deadline))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void workThatThrowsLeavesNoDeadlineBound() {
        assertThatThrownBy(() -> engine.execute(key("t"), "{}", String.class, within(Duration.ofSeconds(5)), ctx -> {
            assertThat(Deadline.current()).isPresent();
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(Deadline.current()).isEmpty();
    }
}
