package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.TripCounter;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Reconciliation;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a start marker costs: a first execution on a fresh key whose work runs one plain step
 * ({@code plainStep}: its result journaled with one fenced {@code checkpoint}) or one at-most-once
 * step ({@code atMostOnceStep}: its start journaled with one fenced {@code checkpoint} before the
 * action runs, then its result), on the memory store, PostgreSQL and Redis. The difference is the
 * marker's write, one round trip on a remote store (the smoke test pins the count); the reconciler
 * never runs on a first execution. The step bodies cost nothing and return a short id. Average time
 * per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AtMostOnceStepBenchmark {
    private static final Work<Receipt> PLAIN_STEP = ctx -> {
        ctx.step("charge", String.class, () -> "ch_1");
        return Receipt.OK;
    };
    private static final Work<Receipt> AT_MOST_ONCE_STEP = ctx -> {
        ctx.atMostOnceStep("charge", String.class, () -> "ch_1", started -> Reconciliation.unknown(
                "a first execution never reconciles"));
        return Receipt.OK;
    };

    /** The store under test. */
    @Param({"MEMORY", "POSTGRES", "REDIS"})
    public Backend backend;

    /** Whether to count round trips (the smoke test does; timing runs do not, it adds overhead). */
    boolean countTrips;

    private Environment env;
    private IdempotencyEngine engine;
    private String scope;
    private final AtomicLong sequence = new AtomicLong();

    /** Starts the backend and builds the engine. */
    @Setup
    public void setUp() {
        env = Environment.open(backend, StoreBenchmark.LEASE, StoreBenchmark.TTL, countTrips);
        engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE)
                .ttl(StoreBenchmark.TTL).build();
        scope = "at-most-once-" + UUID.randomUUID();
    }

    /** Closes the clients (the servers go with the JVM). */
    @TearDown
    public void tearDown() {
        env.close();
    }

    /**
     * A new key whose work runs one plain step: claim, the step and its journal write, complete.
     *
     * @return the result
     */
    @Benchmark
    public Result<Receipt> plainStep() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, PLAIN_STEP);
    }

    /**
     * A new key whose work runs one at-most-once step: claim, the start marker's journal write, the
     * step and its result's journal write, complete.
     *
     * @return the result
     */
    @Benchmark
    public Result<Receipt> atMostOnceStep() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, AT_MOST_ONCE_STEP);
    }

    /** Round trips so far, when counting. */
    long trips() {
        TripCounter counter = env.trips();
        if (counter == null) {
            throw new IllegalStateException("set countTrips before setUp to count round trips");
        }
        return counter.total();
    }

    private IdempotencyKey next() {
        return IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "k" + sequence.incrementAndGet());
    }
}
