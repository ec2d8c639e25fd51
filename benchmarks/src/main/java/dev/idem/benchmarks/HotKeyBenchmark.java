package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whether duplicates waiting on one hot key slow the calls on other keys: two threads replay
 * keys of their own ({@code otherKeys}, the measured throughput) while six threads send
 * duplicates of one key that another worker holds ({@code hotKeyDuplicate}: the engine waits,
 * polling the store with backoff, up to 50 ms, then answers 409, and the thread sends the
 * next one). With {@code waiting=0} the six threads send nothing (they sleep), so
 * {@code otherKeys} at {@code waiting=6} over {@code waiting=0} is what the waiters cost the
 * rest of the engine: 1.00x means nothing. One engine and one memory store serve all eight
 * threads, as in an application; run it as it is (eight threads: {@code -t} does not apply to
 * a group).
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HotKeyBenchmark {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    /** Duplicates waiting on the hot key: 0 (the baseline) or 6. */
    @Param({"0", "6"})
    public int waiting;

    private IdempotencyEngine engine;
    private IdempotencyKey hotKey;
    private final AtomicInteger threads = new AtomicInteger();

    /**
     * One engine for all; the hot key held by a worker that never finishes within the run. First
     * a single-threaded warm-up of the replay path on an engine of its own, so the JIT is done
     * before eight threads share two cores (see {@link ScalingBenchmark}).
     */
    @Setup
    public void setUp() {
        IdempotencyEngine warm = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).lease(LEASE)
                .ttl(TTL).build();
        IdempotencyKey warmKey = IdempotencyKey.of("warm", StoreBenchmark.OPERATION, "warm");
        for (int i = 0, n = ScalingBenchmark.warmupCalls(); i < n; i++) {
            warm.execute(warmKey, Documents.PAYMENT, Receipt.class, WORK);
        }
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        engine = IdempotencyEngine.builder().store(store).lease(LEASE).ttl(TTL)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMillis(50))).build();
        hotKey = IdempotencyKey.of("hot", StoreBenchmark.OPERATION, "hot");
        byte[] fingerprint = RecordFormat.of(new com.fasterxml.jackson.databind.ObjectMapper())
                .fingerprint(StoreBenchmark.OPERATION, Documents.PAYMENT);
        if (!store.claim(hotKey, fingerprint, 42, Duration.ofHours(1), TTL).claimed()) {
            throw new IllegalStateException("the hot key was taken");
        }
    }

    /** A thread's own completed key. */
    @State(Scope.Thread)
    public static class Own {
        IdempotencyKey key;

        /** Names the key and completes it. */
        @Setup
        public void setUp(HotKeyBenchmark shared) {
            key = IdempotencyKey.of("other", StoreBenchmark.OPERATION, "t" + shared.threads.incrementAndGet());
            shared.engine.execute(key, Documents.PAYMENT, Receipt.class, WORK);
        }
    }

    /** A replay of the thread's own key: the throughput that must not fall. */
    @Benchmark
    @Group("hotKey")
    @GroupThreads(2)
    public Result<Receipt> otherKeys(Own own) {
        return engine.execute(own.key, Documents.PAYMENT, Receipt.class, WORK);
    }

    /** A duplicate of the held key, waiting up to 50 ms (or, with {@code waiting=0}, a 50 ms sleep). */
    @Benchmark
    @Group("hotKey")
    @GroupThreads(6)
    public Object hotKeyDuplicate() throws InterruptedException {
        if (waiting == 0) {
            Thread.sleep(50);
            return null;
        }
        try {
            return engine.execute(hotKey, Documents.PAYMENT, Receipt.class, WORK);
        } catch (RequestInProgressException expected) {
            return expected;
        }
    }
}
