package dev.idem.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * With BlockHound installed (as an application that checks its event loops does), the engine never
 * blocks a Reactor thread: not where a call starts, not where a non-blocking store's answer comes
 * (a store client's I/O thread, here Reactor's parallel threads), not where the work's stage
 * completes, not where a caller cancels. A lock taken there is counted whether or not it is
 * contended (a contended one parks the thread; the engine's default executor and its timers took
 * one), so the check does not depend on timing: duplicates waiting, callers that cancel, work that
 * completes on the parallel scheduler, over a store with a non-blocking form and over one without.
 */
@Timeout(120)
class NothingBlocksANonBlockingThreadTest {
    private static final List<Throwable> BLOCKED = new CopyOnWriteArrayList<>();
    private static volatile boolean watching;

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install(builder -> builder
                .markAsBlocking(ReentrantLock.class, "lock", "()V")
                .markAsBlocking(ReentrantLock.class, "lockInterruptibly", "()V")
                .blockingMethodCallback(method -> {
                    if (watching) {
                        BLOCKED.add(new AssertionError("blocking call " + method + " on "
                                + Thread.currentThread().getName()));
                    }
                }));
    }

    @Test
    void theControlIsCaught() {
        watching = true;
        try {
            BLOCKED.clear();
            Mono.fromRunnable(() -> {
                ReentrantLock lock = new ReentrantLock();
                lock.lock();
                lock.unlock();
            }).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
            assertThat(BLOCKED).as("a lock taken on a parallel thread").hasSize(1);
        } finally {
            watching = false;
            BLOCKED.clear();
        }
    }

    @Test
    void overANonBlockingStoreWhoseAnswersComeOnAnEventLoop() throws Exception {
        run(new AnswersOnParallel(MemoryIdempotencyStore.builder().build()));
    }

    @Test
    void overABlockingStore() throws Exception {
        run(MemoryIdempotencyStore.builder().build());
    }

    private void run(IdempotencyStore store) throws Exception {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20))).build()) {
            ReactorIdempotency idem = ReactorIdempotency.of(engine);
            BLOCKED.clear();
            watching = true;
            List<Mono<String>> calls = new ArrayList<>();
            for (int k = 0; k < 40; k++) {
                IdempotencyKey key = IdempotencyKey.of("tenant", "charge", "k" + k);
                for (int d = 0; d < 6; d++) {
                    Mono<String> call = Mono.defer(() -> idem.call(key, Map.of("k", key.key()), String.class,
                            ctx -> Mono.delay(Duration.ofMillis(20)).map(tick -> "value of " + key.key())))
                            .subscribeOn(Schedulers.parallel());
                    if (d == 5) {
                        // A caller that gives up while it waits: cancelled on a parallel thread.
                        call = call.timeout(Duration.ofMillis(5)).onErrorResume(TimeoutException.class,
                                e -> Mono.just("gave up"));
                    }
                    calls.add(call);
                }
            }
            List<String> answers = Flux.merge(calls).collectList().block(Duration.ofSeconds(60));
            watching = false;
            assertThat(answers).hasSize(calls.size()).allMatch(a -> a.startsWith("value of ") || a.equals("gave up"));
            assertThat(BLOCKED).as("blocking calls on non-blocking threads:%n%s", where()).isEmpty();
        } finally {
            watching = false;
        }
    }

    /** Where each blocking call was made: the frames below BlockHound's, distinct ones once. */
    private static String where() {
        StringBuilder out = new StringBuilder();
        BLOCKED.stream().map(e -> {
            StringBuilder frames = new StringBuilder(e.getMessage());
            StackTraceElement[] stack = e.getStackTrace();
            for (int i = 3; i < Math.min(stack.length, 22); i++) {
                frames.append("\n    at ").append(stack[i]);
            }
            return frames.toString();
        }).distinct().limit(5).forEach(trace -> out.append(trace).append("\n"));
        return out.toString();
    }

    /** A store whose non-blocking form answers on Reactor's parallel threads, as a client's I/O thread would. */
    static final class AnswersOnParallel extends ForwardingIdempotencyStore {
        private final NonBlockingStore form = new Form();

        AnswersOnParallel(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<NonBlockingStore> nonBlocking() {
            return Optional.of(form);
        }

        /** Runs {@code op} on the calling thread (the memory store takes no lock) and answers on a parallel thread. */
        private static <R> CompletionStage<R> answered(Supplier<R> op) {
            CompletableFuture<R> answer = new CompletableFuture<>();
            try {
                R value = op.get();
                Schedulers.parallel().schedule(() -> answer.complete(value));
            } catch (RuntimeException e) {
                Schedulers.parallel().schedule(() -> answer.completeExceptionally(e));
            }
            return answer;
        }

        private final class Form implements NonBlockingStore {
            @Override
            public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long token,
                    Duration lease, Duration ttl) {
                return answered(() -> delegate().claim(key, fingerprint, token, lease, ttl));
            }

            @Override
            public CompletionStage<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                return answered(() -> delegate().complete(key, token, outcome, ttl));
            }

            @Override
            public CompletionStage<Boolean> release(IdempotencyKey key, long token) {
                return answered(() -> delegate().release(key, token));
            }

            @Override
            public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long token, byte[] journal) {
                return answered(() -> delegate().checkpoint(key, token, journal));
            }

            @Override
            public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
                return answered(() -> delegate().extendLease(key, token, lease));
            }

            @Override
            public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
                return answered(() -> delegate().find(key));
            }
        }
    }
}
