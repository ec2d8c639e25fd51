package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.secretKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Duplicates that wait in one engine share their polls of a key, so most of them judge a record
 * another waiter's claim read. A record that holds the request's fingerprint in another version
 * than the engine's (claimed before keyed fingerprints were turned on, or under the secret a
 * rotation replaced) is the same request to every one of them: each replays it, blocking or
 * asynchronous, however many wait; none is told the key was reused.
 */
@Timeout(60)
class WaitersAcrossFingerprintVersionsTest {
    private static final KeyVersion F1 = secretKey("f1", 0x11);
    private static final KeyVersion F2 = secretKey("f2", 0x22);
    private static final String REQUEST = "{\"amount\":100,\"currency\":\"usd\"}";
    private static final long BOUND_SECONDS = 20;

    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().build();
    private final Gate gate = new Gate(memory);
    private final AtomicInteger runs = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<IdempotencyEngine> engines = new ArrayList<>();

    @AfterEach
    void stop() {
        gate.open();
        threads.shutdownNow();
        engines.forEach(IdempotencyEngine::close);
    }

    /** How the engine the waiters call differs from the one that claimed the key. */
    enum Change {
        TURNING_KEYED_FINGERPRINTS_ON(b -> b, b -> b.keyedFingerprints(KeyRing.of(F1))),
        ROTATING_THE_SECRET(b -> b.keyedFingerprints(KeyRing.of(F1)), b -> b.keyedFingerprints(KeyRing.of(F2, F1)));

        final UnaryOperator<IdempotencyEngineBuilder> before;
        final UnaryOperator<IdempotencyEngineBuilder> after;

        Change(UnaryOperator<IdempotencyEngineBuilder> before, UnaryOperator<IdempotencyEngineBuilder> after) {
            this.before = before;
            this.after = after;
        }
    }

    static List<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Change change : Change.values()) {
            for (boolean async : new boolean[] {false, true}) {
                for (int waiters : new int[] {2, 3}) {
                    all.add(Arguments.of(change, async, waiters));
                }
            }
        }
        return all;
    }

    private IdempotencyEngine engine(IdempotencyStore store, UnaryOperator<IdempotencyEngineBuilder> settings) {
        IdempotencyEngine engine = settings.apply(IdempotencyEngine.builder().store(store)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(BOUND_SECONDS)))).build();
        engines.add(engine);
        return engine;
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("merchant-1", "charge", k);
    }

    @ParameterizedTest(name = "{0}, async {1}, {2} waiters")
    @MethodSource("cases")
    void waitersOfACompletedRecordAllReplayIt(Change change, boolean async, int waiters) throws Exception {
        IdempotencyKey key = key("completed");
        String first = engine(memory, change.before).call(key, REQUEST, String.class, ctx -> "first");
        IdempotencyEngine later = engine(gate, change.after);

        List<CompletableFuture<Result<String>>> answers = waitAtTheGate(later, key, async, waiters);
        gate.open();

        for (CompletableFuture<Result<String>> answer : answers) {
            Result<String> r = answer.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(r.replayed()).isTrue();
            assertThat(r.value()).isEqualTo(first);
        }
        assertThat(runs).hasValue(0);
    }

    @ParameterizedTest(name = "{0}, async {1}, {2} waiters")
    @MethodSource("cases")
    void waitersOfARecordInProgressWaitAndReplayIt(Change change, boolean async, int waiters) throws Exception {
        IdempotencyKey key = key("in-progress");
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        IdempotencyEngine holder = engine(memory, change.before);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> holder.call(key, REQUEST, String.class,
                ctx -> {
                    holding.countDown();
                    assertThat(finish.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
                    return "first";
                }), threads);
        assertThat(holding.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        IdempotencyEngine later = engine(gate, change.after);

        List<CompletableFuture<Result<String>>> answers = waitAtTheGate(later, key, async, waiters);
        gate.open();
        // Every waiter has judged the shared answer (in progress) before the holder ends.
        assertThat(gate.awaitClaims(2)).isTrue();
        finish.countDown();

        assertThat(first.get(BOUND_SECONDS, TimeUnit.SECONDS)).isEqualTo("first");
        for (CompletableFuture<Result<String>> answer : answers) {
            Result<String> r = answer.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(r.replayed()).isTrue();
            assertThat(r.value()).isEqualTo("first");
        }
        assertThat(runs).hasValue(0);
    }

    /**
     * Starts {@code waiters} callers of {@code key} on {@code engine}: the first one's claim is held at
     * the gate, and the others join its poll before it answers.
     */
    private List<CompletableFuture<Result<String>>> waitAtTheGate(IdempotencyEngine engine, IdempotencyKey key,
            boolean async, int waiters) throws Exception {
        List<CompletableFuture<Result<String>>> answers = new ArrayList<>();
        List<Thread> blocked = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            if (async) {
                answers.add(engine.executeAsync(key, REQUEST, String.class,
                        ctx -> CompletableFuture.completedFuture("ran " + runs.incrementAndGet())));
            } else {
                CompletableFuture<Result<String>> answer = new CompletableFuture<>();
                CountDownLatch calling = new CountDownLatch(1);
                threads.execute(() -> {
                    blocked.add(Thread.currentThread());
                    calling.countDown();
                    try {
                        answer.complete(engine.execute(key, REQUEST, String.class,
                                ctx -> "ran " + runs.incrementAndGet()));
                    } catch (RuntimeException | Error e) {
                        answer.completeExceptionally(e);
                    }
                });
                assertThat(calling.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
                answers.add(answer);
            }
            if (i == 0) {
                assertThat(gate.awaitClaims(1)).as("the first waiter's claim reached the gate").isTrue();
            }
        }
        // A blocking waiter that joined the poll parks on its answer (the issuer parks at the gate).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        for (Thread t : blocked) {
            while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING
                    && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
        }
        assertThat(gate.claims()).as("one claim for all the waiters: they share its answer").isEqualTo(1);
        return answers;
    }

    /** Holds every claim while closed. */
    static final class Gate extends ForwardingIdempotencyStore {
        private final AtomicInteger claims = new AtomicInteger();
        private final CountDownLatch opened = new CountDownLatch(1);

        Gate(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            synchronized (this) {
                claims.incrementAndGet();
                notifyAll();
            }
            try {
                if (!opened.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
                    throw new AssertionError("the gate stayed closed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            return delegate().claim(key, fingerprint, token, lease, ttl);
        }

        void open() {
            opened.countDown();
        }

        int claims() {
            return claims.get();
        }

        synchronized boolean awaitClaims(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            for (long left = deadline - System.nanoTime(); claims.get() < n && left > 0;
                    left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return claims.get() >= n;
        }
    }
}
