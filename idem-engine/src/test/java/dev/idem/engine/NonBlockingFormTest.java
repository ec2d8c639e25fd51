package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An asynchronous call over a store's {@link NonBlockingStore} form: the store's stages complete
 * on the store's own (I/O) thread, yet what the engine does next runs on its executor, an answer
 * the executor refuses is not lost, and a store that breaks its contract fails the call cleanly.
 */
class NonBlockingFormTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant", "charge", "k-1");
    private static final long WAIT_SECONDS = 10;

    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "store-io"));
    private final ExecutorService engineThreads = Executors.newSingleThreadExecutor(r -> new Thread(r, "engine"));
    private final ExecutorService renewalThreads = Executors.newSingleThreadExecutor(r -> new Thread(r, "renewal"));
    private final MemoryIdempotencyStore backend = MemoryIdempotencyStore.create();
    /** Which store calls the form answered, in order. */
    private final List<String> calls = new CopyOnWriteArrayList<>();
    /** While set, the engine's executor refuses every task. */
    private final AtomicBoolean refusing = new AtomicBoolean();
    /** While set, the renewal executor refuses every task too. */
    private final AtomicBoolean renewalsRefusing = new AtomicBoolean();

    @AfterEach
    void stop() {
        io.shutdownNow();
        engineThreads.shutdownNow();
        renewalThreads.shutdownNow();
    }

    private IdempotencyEngine engine(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store)
                .asyncExecutor(task -> {
                    if (refusing.get()) {
                        throw new RejectedExecutionException("saturated");
                    }
                    engineThreads.execute(task);
                })
                .leaseRenewalExecutor(task -> {
                    if (renewalsRefusing.get()) {
                        throw new RejectedExecutionException("saturated too");
                    }
                    renewalThreads.execute(task);
                })
                .build();
    }

    @Test
    void aCallAndItsReplayGoThroughTheFormAndContinueOffTheStoresThread() throws Exception {
        try (IdempotencyEngine engine = engine(new Forms(backend))) {
            List<String> workThreads = new CopyOnWriteArrayList<>();
            Result<String> first = engine.executeAsync(KEY, "{\"amount\":1}", String.class, ctx -> {
                workThreads.add(Thread.currentThread().getName());
                return CompletableFuture.completedFuture("charged");
            }).get(WAIT_SECONDS, TimeUnit.SECONDS);
            Result<String> replay = engine.executeAsync(KEY, "{\"amount\":1}", String.class,
                    ctx -> CompletableFuture.completedFuture("again")).get(WAIT_SECONDS, TimeUnit.SECONDS);

            assertThat(first.value()).isEqualTo("charged");
            assertThat(first.replayed()).isFalse();
            assertThat(replay.value()).isEqualTo("charged");
            assertThat(replay.replayed()).isTrue();
            assertThat(workThreads).containsExactly("engine");
            assertThat(calls).startsWith("claim", "complete");
            assertThat(backend.find(KEY).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        }
    }

    @Test
    void aFailedWorkReleasesTheKeyThroughTheForm() throws Exception {
        try (IdempotencyEngine engine = engine(new Forms(backend))) {
            CompletableFuture<Result<String>> failed = engine.executeAsync(KEY, "{}", String.class,
                    ctx -> CompletableFuture.failedFuture(new IllegalStateException("gateway down")));
            assertThatThrownBy(() -> failed.get(WAIT_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasRootCauseMessage("gateway down");
            assertThat(calls).contains("claim", "release").doesNotContain("complete");
            // Released: the next call runs the work.
            Result<String> retry = engine.executeAsync(KEY, "{}", String.class,
                    ctx -> CompletableFuture.completedFuture("charged")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(retry.replayed()).isFalse();
            assertThat(retry.value()).isEqualTo("charged");
        }
    }

    @Test
    void anAnswerTheExecutorRefusesStillEndsTheCall() throws Exception {
        try (IdempotencyEngine engine = engine(new Forms(backend) {
            @Override
            void beforeComplete() {
                // From here on the engine's executor is saturated: the answer of the outcome's
                // write must reach the caller some other way.
                refusing.set(true);
            }
        })) {
            Result<String> first = engine.executeAsync(KEY, "{}", String.class,
                    ctx -> CompletableFuture.completedFuture("charged")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(first.value()).isEqualTo("charged");
            assertThat(backend.find(KEY).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        }
    }

    @Test
    void anAnswerBothExecutorsRefuseRunsOnTheStoresThreadAndStillEndsTheCall() throws Exception {
        try (IdempotencyEngine engine = engine(new Forms(backend) {
            @Override
            void beforeComplete() {
                refusing.set(true);
                renewalsRefusing.set(true);
            }
        })) {
            Result<String> first = engine.executeAsync(KEY, "{}", String.class,
                    ctx -> CompletableFuture.completedFuture("charged")).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(first.value()).isEqualTo("charged");
            assertThat(backend.find(KEY).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        }
    }

    @Test
    void aFormThatReturnsNoStageOrThrowsFailsTheCallAndRunsNoWork() {
        AtomicBoolean ran = new AtomicBoolean();
        try (IdempotencyEngine engine = engine(new Forms(backend) {
            @Override
            <R> CompletionStage<R> answer(String call, Supplier<R> body) {
                return call.equals("claim") ? null : super.answer(call, body);
            }
        })) {
            CompletableFuture<Result<String>> answer = engine.executeAsync(KEY, "{}", String.class, ctx -> {
                ran.set(true);
                return CompletableFuture.completedFuture("charged");
            });
            assertThatThrownBy(() -> answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(StoreUnavailableException.class).hasMessageContaining("no stage");
        }
        try (IdempotencyEngine engine = engine(new Forms(backend) {
            @Override
            <R> CompletionStage<R> answer(String call, Supplier<R> body) {
                if (call.equals("claim")) {
                    throw new StoreUnavailableException("connection refused", null);
                }
                return super.answer(call, body);
            }
        })) {
            CompletableFuture<Result<String>> answer = engine.executeAsync(KEY, "{}", String.class, ctx -> {
                ran.set(true);
                return CompletableFuture.completedFuture("charged");
            });
            assertThatThrownBy(() -> answer.get(WAIT_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(StoreUnavailableException.class).hasMessageContaining("connection refused");
        }
        assertThat(ran).isFalse();
        assertThat(backend.find(KEY)).isEmpty();
    }

    /** The memory store with a non-blocking form whose stages complete on the store's I/O thread. */
    private class Forms extends ForwardingIdempotencyStore {
        Forms(IdempotencyStore delegate) {
            super(delegate);
        }

        void beforeComplete() {
        }

        <R> CompletionStage<R> answer(String call, Supplier<R> body) {
            return CompletableFuture.supplyAsync(() -> {
                R r = body.get();
                calls.add(call);
                return r;
            }, io);
        }

        @Override
        public Optional<NonBlockingStore> nonBlocking() {
            IdempotencyStore s = delegate();
            return Optional.of(new NonBlockingStore() {
                @Override
                public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                        Duration lease, Duration ttl) {
                    return answer("claim", () -> s.claim(key, fingerprint, fencingToken, lease, ttl));
                }

                @Override
                public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                        Duration ttl) {
                    beforeComplete();
                    return answer("complete", () -> s.complete(key, fencingToken, outcome, ttl));
                }

                @Override
                public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
                    return answer("release", () -> s.release(key, fencingToken));
                }

                @Override
                public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
                    return answer("checkpoint", () -> s.checkpoint(key, fencingToken, journal));
                }

                @Override
                public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                        Duration lease) {
                    return answer("extendLease", () -> s.extendLease(key, fencingToken, lease));
                }

                @Override
                public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
                    return answer("find", () -> s.find(key));
                }
            });
        }
    }
}
