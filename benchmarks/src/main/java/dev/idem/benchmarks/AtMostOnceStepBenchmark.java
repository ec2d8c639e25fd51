package dev.idem.benchmarks;

import dev.idem.engine.Reconciliation;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
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
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AtMostOnceStepBenchmark extends FirstExecutionState {
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

    @Override
    protected Backend backend() {
        return backend;
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
}
