package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous ports on their own, over the memory store: each answers the store's own value
 * (a write the token no longer allows answers false, or empty, never the opposite), hands it on on
 * the engine's threads (never the store client's I/O thread), gives its lane slot back also when
 * the store call throws, and pauses between write retries as the engine's sleeper or timer says,
 * an interrupted pause ending the retries and keeping the interrupt.
 */
class StorePortsTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant", "charge", "k-1");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final long WAIT_SECONDS = 10;
    private static final byte[] FINGERPRINT = new byte[32];

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "store-io"));
    private final ExecutorService engineThreads = Executors.newSingleThreadExecutor(r -> new Thread(r, "engine"));
    private final List<Duration> sleeps = new ArrayList<>();

    @AfterEach
    void stop() {
        io.shutdownNow();
        engineThreads.shutdownNow();
    }

    private LanedPort laned(IdempotencyStore store, StoreLane lane) {
        return new LanedPort(store, lane, () -> engineThreads, () -> engineThreads, sleeps::add);
    }

    /** The memory store's non-blocking form, its stages completed on the store's I/O thread. */
    private NonBlockingStore nonBlocking(IdempotencyStore s) {
        return new NonBlockingStore() {
            private <R> CompletionStage<R> onIo(Supplier<R> body) {
                return CompletableFuture.supplyAsync(body, io);
            }

            @Override
            public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                    Duration lease, Duration ttl) {
                return onIo(() -> s.claim(key, fingerprint, fencingToken, lease, ttl));
            }

            @Override
            public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                    Duration ttl) {
                return onIo(() -> s.complete(key, fencingToken, outcome, ttl));
            }

            @Override
            public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
                return onIo(() -> s.release(key, fencingToken));
            }

            @Override
            public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
                return onIo(() -> s.checkpoint(key, fencingToken, journal));
            }

            @Override
            public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                    Duration lease) {
                return onIo(() -> s.extendLease(key, fencingToken, lease));
            }

            @Override
            public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
                return onIo(() -> s.find(key));
            }
        };
    }

    private static <R> R await(CompletableFuture<R> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static ClaimResult claimed(StorePort port, long token) throws Exception {
        CompletableFuture<ClaimResult> answer = new CompletableFuture<>();
        port.claim(KEY, FINGERPRINT, token, LEASE, TTL, (value, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else {
                answer.complete(value);
            }
        });
        return await(answer);
    }

    /** Every write of a held key answers what the store answered, for the current token and a stale one. */
    private void writesAnswerTheStoresOwnValue(StorePort port) throws Exception {
        assertThat(claimed(port, 1).claimed()).isTrue();
        assertThat(await(port.extendLease(KEY, 2, LEASE))).as("a stale token's extension").isEmpty();
        assertThat(await(port.extendLease(KEY, 1, LEASE.multipliedBy(2)))).contains(clock.instant().plus(
                LEASE.multipliedBy(2)));
        assertThat(await(port.release(KEY, 2))).as("a stale token's release").isFalse();
        assertThat(await(port.complete(KEY, 2, new byte[] {'x'}, TTL))).as("a stale token's completion").isFalse();
        assertThat(await(port.release(KEY, 1))).isTrue();
        assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.RELEASED);

        assertThat(claimed(port, 3).claimed()).isTrue();
        assertThat(await(port.complete(KEY, 3, new byte[] {'x'}, TTL))).isTrue();
        assertThat(memory.find(KEY).map(StoredRecord::state)).contains(RecordState.COMPLETED);
        assertThat(await(port.release(KEY, 3))).as("a completed key is not released").isFalse();
    }

    @Test
    void theLanedPortAnswersTheStoresOwnValues() throws Exception {
        writesAnswerTheStoresOwnValue(laned(memory, new StoreLane(4)));
    }

    @Test
    void theNonBlockingPortAnswersTheStoresOwnValuesOnTheEnginesThreads() throws Exception {
        AsyncRuntime runtime = new AsyncRuntime(engineThreads, engineThreads, new ManualScheduler(() -> 0L),
                Duration.ofMinutes(1), 100);
        NonBlockingPort port = new NonBlockingPort(nonBlocking(memory), new StoreLane(4), runtime);
        writesAnswerTheStoresOwnValue(port);

        CompletableFuture<String> answeredOn = new CompletableFuture<>();
        port.claim(KEY, FINGERPRINT, 4, LEASE, TTL, (value, failure) -> answeredOn.complete(
                Thread.currentThread().getName()));
        assertThat(await(answeredOn)).as("never on the store's I/O thread").isEqualTo("engine");
    }

    @Test
    void aStoreCallThatThrowsIsAnsweredWithItsFailureAndGivesItsSlotBack() throws Exception {
        StoreLane lane = new StoreLane(1, 0);
        LanedPort port = laned(memory, lane);
        StoreUnavailableException down = new StoreUnavailableException("connection refused", null, true);
        for (int i = 0; i < 3; i++) {
            CompletableFuture<Object> answer = new CompletableFuture<>();
            port.call(false, () -> {
                throw down;
            }, (value, failure) -> answer.complete(failure));
            assertThat(await(answer)).isSameAs(down);
        }
        CompletableFuture<Boolean> next = port.release(KEY, 1);
        assertThat(await(next)).as("the one slot came back each time").isFalse();
        assertThat(lane.running()).isZero();
    }

    @Test
    void theLanedPortPausesOnTheEnginesSleeperAndAnInterruptedPauseEndsTheRetriesKeepingTheInterrupt() {
        LanedPort port = laned(memory, new StoreLane(4));
        assertThat(port.pause(Duration.ofMillis(50))).isCompleted().isNotCompletedExceptionally();
        assertThat(sleeps).containsExactly(Duration.ofMillis(50));

        LanedPort interrupted = new LanedPort(memory, new StoreLane(4), () -> engineThreads, () -> engineThreads,
                d -> {
                    throw new InterruptedException("shutting down");
                });
        try {
            CompletableFuture<Void> pause = interrupted.pause(Duration.ofMillis(50));
            assertThat(pause).isCompletedExceptionally();
            assertThatThrownBy(pause::get).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theNonBlockingPortPausesOnTheEnginesTimer() {
        long[] now = {0};
        ManualScheduler timer = new ManualScheduler(() -> now[0]);
        AsyncRuntime runtime = new AsyncRuntime(Runnable::run, Runnable::run, timer, Duration.ofMinutes(1), 100);
        NonBlockingPort port = new NonBlockingPort(nonBlocking(memory), new StoreLane(4), runtime);
        CompletableFuture<Void> pause = port.pause(Duration.ofMillis(50));
        assertThat(pause).isNotDone();
        now[0] += TimeUnit.MILLISECONDS.toNanos(50);
        timer.runDue();
        assertThat(pause).isCompleted().isNotCompletedExceptionally();
    }
}
