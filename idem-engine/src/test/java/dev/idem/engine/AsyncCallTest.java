package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous call gives the blocking call's answers on every path of the guarantees table,
 * with its failures unwrapped. Store calls run on the executor given to the engine (here the
 * test's own thread, so every step is deterministic) and waits go through a {@link ManualScheduler}
 * on the store's simulated clock: nothing sleeps, and a future that is not done shows that no
 * thread was parked for it.
 */
class AsyncCallTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler scheduler = new ManualScheduler(ClockTicker.of(clock));
    private final List<IdempotencyEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngineBuilder builder() {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).listener(events::add)
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(scheduler).lease(Duration.ofSeconds(30));
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private AsyncWork<String> counted(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(value);
        };
    }

    /** The exception the answer completed with, as {@code whenComplete} sees it. */
    private static Throwable failureOf(CompletableFuture<?> f) {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        f.whenComplete((r, e) -> seen.set(e));
        assertThat(f).isDone();
        return seen.get();
    }

    @Test
    void aFirstCallRunsTheWorkAndADuplicateReplaysIt() throws Exception {
        IdempotencyEngine engine = builder().build();
        Result<String> first = engine.executeAsync(key("a"), "{\"amount\":1}", String.class, counted("ch_1")).get();
        Result<String> second = engine.executeAsync(key("a"), "{\"amount\":1}", String.class, counted("ch_2")).get();

        assertThat(first.replayed()).isFalse();
        assertThat(first.stored()).isTrue();
        assertThat(second.replayed()).isTrue();
        assertThat(second.value()).isEqualTo("ch_1");
        assertThat(runs).hasValue(1);
        assertThat(engine.callAsync(key("a"), "{\"amount\":1}", String.class, counted("x")).get()).isEqualTo("ch_1");
        assertThat(engine.executeAsync(key("u"), "{}", ctx -> CompletableFuture.completedFuture(List.of(1, 2)))
                .get().value()).isEqualTo(List.of(1, 2));
    }

    @Test
    void failuresCompleteTheAnswerWithTheBlockingCallsExceptionsUnwrapped() throws Exception {
        IdempotencyEngine engine = builder().failureClassifier(e -> e instanceof IllegalArgumentException
                ? FailureDecision.finalFailure("declined", "card declined") : FailureDecision.transientFailure())
                .build();
        // A derived stage wraps the failure in CompletionException: the caller gets the work's own exception.
        CompletableFuture<String> transientFailure = engine.callAsync(key("t"), "{}", String.class,
                ctx -> CompletableFuture.supplyAsync(() -> "x", Runnable::run).thenApply(x -> {
                    throw new IllegalStateException("flaky");
                }));
        assertThat(failureOf(transientFailure)).isExactlyInstanceOf(IllegalStateException.class).hasMessage("flaky");
        assertThatThrownBy(transientFailure::get).isInstanceOf(ExecutionException.class)
                .cause().isExactlyInstanceOf(IllegalStateException.class);
        assertThat(store.find(key("t")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);

        CompletableFuture<String> checked = engine.callAsync(key("c"), "{}", String.class,
                ctx -> CompletableFuture.failedFuture(new IOException("disk")));
        assertThat(failureOf(checked)).isInstanceOf(WorkFailedException.class).cause().isInstanceOf(IOException.class);

        CompletableFuture<String> declined = engine.callAsync(key("d"), "{}", String.class,
                ctx -> CompletableFuture.failedFuture(new IllegalArgumentException("no funds")));
        assertThat(failureOf(declined)).isExactlyInstanceOf(FinalFailureException.class);
        CompletableFuture<String> replayed = engine.callAsync(key("d"), "{}", String.class, counted("never"));
        assertThat(failureOf(replayed)).isInstanceOfSatisfying(ReplayedFailureException.class,
                e -> assertThat(e.code()).isEqualTo("declined"));

        engine.callAsync(key("r"), "{\"amount\":1}", String.class, counted("ch")).get();
        assertThat(failureOf(engine.callAsync(key("r"), "{\"amount\":2}", String.class, counted("x"))))
                .isExactlyInstanceOf(KeyReusedException.class);
        assertThat(failureOf(engine.callAsync(key("bad"), "{\"amount\":", String.class, counted("x"))))
                .isInstanceOf(InvalidRequestException.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void workThatThrowsOrReturnsNoStageReleasesTheKeyLikeAThrowingBlockingWork() throws Exception {
        IdempotencyEngine engine = builder().build();
        assertThat(failureOf(engine.callAsync(key("s"), "{}", String.class, ctx -> {
            throw new IllegalStateException("before the stage");
        }))).hasMessage("before the stage");
        assertThat(failureOf(engine.callAsync(key("n"), "{}", String.class, ctx -> null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("returned null");
        assertThat(engine.callAsync(key("s"), "{}", String.class, counted("retried")).get()).isEqualTo("retried");
        assertThat(engine.callAsync(key("n"), "{}", String.class, counted("retried")).get()).isEqualTo("retried");
    }

    @Test
    void programmingErrorsAreThrownAtOnce() {
        IdempotencyEngine engine = builder().build();
        assertThatThrownBy(() -> engine.executeAsync(null, "{}", String.class, counted("x")))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> engine.executeAsync(key("x"), "{}", String.class, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> engine.executeAsync(key("x"), "{}", String.class,
                CallOptions.builder().lease(Duration.ofDays(2)).build(), counted("x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aDuplicateWaitsOnTheSchedulerWithoutParkingAThreadThenReplays() throws Exception {
        IdempotencyEngine engine = builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(10))).build();
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<Result<String>> first = engine.executeAsync(key("w"), "{}", String.class, ctx -> {
            runs.incrementAndGet();
            return work;
        });
        CompletableFuture<Result<String>> duplicate = engine.executeAsync(key("w"), "{}", String.class,
                counted("never"));

        // Everything ran on this thread and returned: the duplicate's wait is a scheduled task, not a parked thread.
        assertThat(first).isNotDone();
        assertThat(duplicate).isNotDone();
        assertThat(scheduler.pending()).isGreaterThanOrEqualTo(1);
        clock.advance(scheduler.nextDue().orElseThrow());
        scheduler.runDue();
        assertThat(duplicate).as("still in progress after one poll").isNotDone();

        work.complete("ch_1");
        assertThat(first.get().value()).isEqualTo("ch_1");
        clock.advance(Duration.ofSeconds(1));
        scheduler.runDue();
        assertThat(duplicate).isDone();
        assertThat(duplicate.get().replayed()).isTrue();
        assertThat(duplicate.get().value()).isEqualTo("ch_1");
        assertThat(runs).hasValue(1);
        assertThat(events.stream().filter(e -> e.type() == Type.IN_PROGRESS_CONFLICT)).hasSize(1);
    }

    @Test
    void aFailFastDuplicateGets409AndAWaitThatRunsOutToo() {
        IdempotencyEngine failFast = builder().build();
        failFast.executeAsync(key("f"), "{}", String.class, ctx -> new CompletableFuture<>());
        assertThat(failureOf(failFast.executeAsync(key("f"), "{}", String.class, counted("x"))))
                .isInstanceOf(RequestInProgressException.class);

        CompletableFuture<Result<String>> waiting = failFast.executeAsync(key("f"), "{}", String.class,
                CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(2))).build(),
                counted("x"));
        for (int i = 0; i < 100 && !waiting.isDone(); i++) {
            clock.advance(scheduler.nextDue().orElseThrow());
            scheduler.runDue();
        }
        assertThat(failureOf(waiting)).isInstanceOf(RequestInProgressException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void cancellingAWaitingCallStopsItsPolls() {
        IdempotencyEngine engine = builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(10))).build();
        engine.executeAsync(key("p"), "{}", String.class, ctx -> new CompletableFuture<>());
        CompletableFuture<Result<String>> duplicate = engine.executeAsync(key("p"), "{}", String.class,
                counted("never"));
        assertThat(duplicate.cancel(false)).isTrue();
        clock.advance(scheduler.nextDue().orElseThrow());
        scheduler.runDue();
        // Only the holder's heartbeat is left; the cancelled caller claims no more.
        clock.advance(Duration.ofSeconds(1));
        scheduler.runDue();
        assertThat(scheduler.pending()).isEqualTo(1);
        assertThat(runs).hasValue(0);
    }

    @Test
    void theDefaultExecutorRunsStoreCallsOffTheCallersThreadOnVirtualThreadsWhereTheJdkHasThem() throws Exception {
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(new FaultyStore(store) {
            @Override
            public dev.idem.api.store.ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token,
                    Duration lease, Duration ttl) {
                threads.add(Thread.currentThread().getName() + (isVirtual(Thread.currentThread()) ? " virtual" : ""));
                return super.claim(key, fingerprint, token, lease, ttl);
            }
        }).build()) {
            assertThat(engine.callAsync(key("v"), "{}", String.class, counted("ok")).get(10, TimeUnit.SECONDS))
                    .isEqualTo("ok");
        }
        assertThat(threads).hasSize(1);
        if (Runtime.version().feature() >= 21) {
            assertThat(threads.get(0)).startsWith("idem-async-").endsWith(" virtual");
        } else {
            assertThat(threads.get(0)).startsWith("idem-async-store-");
        }
        assertThat(threads.get(0)).doesNotContain(Thread.currentThread().getName());
    }

    @Test
    void aClosedEngineRefusesAsyncCallsAndShutsItsOwnExecutorDown() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        assertThat(engine.callAsync(key("c1"), "{}", String.class, counted("ok")).get(10, TimeUnit.SECONDS))
                .isEqualTo("ok");
        engine.close();
        assertThatThrownBy(() -> engine.callAsync(key("c2"), "{}", String.class, counted("ok")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aCompletionExceptionWithoutCauseIsTheFailureItself() {
        assertThat(AsyncCall.unwrap(new CompletionException(null))).isInstanceOf(CompletionException.class);
        assertThat(AsyncCall.unwrap(new CompletionException(new ExecutionException(new Error("e")))))
                .isExactlyInstanceOf(Error.class);
        assertThat(AsyncCall.unwrap(new CompletionException(new Throwable("odd"))))
                .isInstanceOf(java.lang.reflect.UndeclaredThrowableException.class);
    }

    static boolean isVirtual(Thread t) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
