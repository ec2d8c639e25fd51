package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput on distinct keys as threads are added (run with JMH {@code -t 1}, {@code 2},
 * {@code 4}, {@code 8}): the memory store alone (a claim and a completion through the store
 * SPI, and a claim that finds a completed record) and the engine on the memory store (a first
 * execution, and a replay of each thread's own completed key). Every thread makes its own
 * keys, so nothing in the benchmark itself is shared between threads; what does not scale is
 * idem's. Records live two seconds, so the store's own expiry sweep keeps the map small during
 * long runs.
 *
 * <p>The trial starts with a single-threaded warm-up of every path ({@link #warmupCalls()}
 * calls each, on stores of its own): with 8 threads on 2 cores the JIT's compiler threads get
 * a ninth of the CPU and, in short warm-up iterations, the measurement caught code still being
 * compiled (a run whose 8-thread replay climbed from 75,000 to 128,000 calls/s between
 * its two 1-second iterations, while the same run with 12 warm-up iterations of 2 s measured
 * the same throughput on 2 and 8 threads). Warming up on one thread gives the compiler the cores
 * it needs whatever {@code -t} is, so every thread count measures compiled code.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ScalingBenchmark {
    /** The system property that sets {@link #warmupCalls()} (the smoke test makes it small). */
    static final String WARMUP_CALLS_PROPERTY = "idem.bench.warmupCalls";

    /** Calls of each path in the single-threaded warm-up that starts a trial: 200,000 unless set. */
    static int warmupCalls() {
        return Integer.getInteger(WARMUP_CALLS_PROPERTY, 200_000);
    }
    /**
     * The system property that sets the lease in milliseconds (1,000 unless set; records live
     * twice as long): the smoke test lengthens it, since on a loaded machine a cold first call
     * can outlast a second and lose its lease.
     */
    static final String LEASE_MS_PROPERTY = "idem.bench.scalingLeaseMs";
    private static final Duration LEASE = Duration.ofMillis(Long.getLong(LEASE_MS_PROPERTY, 1_000));
    private static final Duration TTL = LEASE.multipliedBy(2);
    private static final byte[] FINGERPRINT = new byte[32];
    private static final byte[] OUTCOME = "S{\"id\":\"ch_1\",\"amountCents\":4250,\"status\":\"succeeded\"}"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    private MemoryIdempotencyStore store;
    private IdempotencyEngine engine;
    private final AtomicInteger threads = new AtomicInteger();

    /** Two memory stores (one used alone, one under the engine), after a single-threaded warm-up. */
    @Setup
    public void setUp() {
        // The same code on stores of its own, so the measured stores start empty.
        ScalingBenchmark warm = new ScalingBenchmark();
        warm.store = MemoryIdempotencyStore.create();
        warm.engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).lease(LEASE).ttl(TTL).build();
        Keys keys = new Keys();
        keys.setUp(warm);
        long sink = 0;
        for (int i = 0, n = warmupCalls(); i < n; i++) {
            sink += warm.storeFirst(keys) ? 1 : 0;
            sink += warm.storeReplay(keys).claimed() ? 1 : 0;
            sink += warm.engineFirst(keys).attempt();
            sink += warm.engineReplay(keys).attempt();
        }
        if (sink == 42) {
            System.out.println("(warm-up checksum)");
        }
        store = MemoryIdempotencyStore.create();
        engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).lease(LEASE).ttl(TTL).build();
    }

    /** A thread's own key sequence and its own completed keys. */
    @State(Scope.Thread)
    public static class Keys {
        String prefix;
        long next;
        long token;
        IdempotencyKey replayKey;
        IdempotencyKey storeReplayKey;

        /** Names this thread's keys. */
        @Setup
        public void setUp(ScalingBenchmark shared) {
            prefix = "t" + shared.threads.incrementAndGet() + "-";
            token = (long) shared.threads.get() << 40;
            replayKey = IdempotencyKey.of("scaling", StoreBenchmark.OPERATION, prefix + "replay");
            storeReplayKey = IdempotencyKey.of("scaling", StoreBenchmark.OPERATION, prefix + "store-replay");
        }

        IdempotencyKey fresh() {
            return IdempotencyKey.of("scaling", StoreBenchmark.OPERATION, prefix + next++);
        }
    }

    /** The memory store alone: claim a new key, complete it. */
    @Benchmark
    public boolean storeFirst(Keys keys) {
        IdempotencyKey key = keys.fresh();
        long token = ++keys.token;
        if (!store.claim(key, FINGERPRINT, token, LEASE, TTL).claimed()) {
            throw new IllegalStateException("fresh key " + key + " was taken");
        }
        return store.complete(key, token, OUTCOME, TTL);
    }

    /**
     * The memory store alone: a claim that finds the thread's completed record (completing it
     * again when its two-second record has expired, as the engine's replay does).
     */
    @Benchmark
    public ClaimResult storeReplay(Keys keys) {
        ClaimResult claim = store.claim(keys.storeReplayKey, FINGERPRINT, ++keys.token, LEASE, TTL);
        if (claim.claimed()) {
            store.complete(keys.storeReplayKey, keys.token, OUTCOME, TTL);
        }
        return claim;
    }

    /** The engine on the memory store: a first execution of a new key. */
    @Benchmark
    public Result<Receipt> engineFirst(Keys keys) {
        return engine.execute(keys.fresh(), Documents.PAYMENT, Receipt.class, WORK);
    }

    /**
     * The engine on the memory store: a replay of the thread's own key (re-run when its
     * two-second record has expired, which the measurement includes at a rate of one call
     * in every few hundred thousand).
     */
    @Benchmark
    public Result<Receipt> engineReplay(Keys keys) {
        return engine.execute(keys.replayKey, Documents.PAYMENT, Receipt.class, WORK);
    }
}
