package dev.idem.benchmarks;

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
 * What a recovery point costs: a first execution on a fresh key whose work runs no step, one
 * step, or three steps, on each store. Every step journals its result through the store's
 * fenced {@code checkpoint} before it returns, so the difference between {@code oneStep} and
 * {@code plainExecution} is one journal write (one round trip on a remote store), and
 * {@code threeSteps} shows how it grows with the journal. The steps' bodies cost nothing;
 * each returns a short id, as recommended for step results. Average time per call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StepBenchmark extends FirstExecutionState {
    private static final Work<Receipt> PLAIN = ctx -> Receipt.OK;
    private static final Work<Receipt> ONE_STEP = ctx -> {
        ctx.step("charge", String.class, () -> "ch_1");
        return Receipt.OK;
    };
    private static final Work<Receipt> THREE_STEPS = ctx -> {
        ctx.step("reserve", String.class, () -> "res_1");
        ctx.step("charge", String.class, () -> "ch_1");
        ctx.step("ship", String.class, () -> "shp_1");
        return Receipt.OK;
    };

    /** The store under test. */
    @Param({"MEMORY", "H2", "POSTGRES", "MARIADB", "REDIS", "REDIS_CLUSTER", "DYNAMODB"})
    public Backend backend;

    @Override
    protected Backend backend() {
        return backend;
    }

    /**
     * A new key whose work runs no step: claim, work, complete.
     *
     * @return the result
     */
    @Benchmark
    public Result<Receipt> plainExecution() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, PLAIN);
    }

    /**
     * A new key whose work runs one step: claim, step and its journal write, complete.
     *
     * @return the result
     */
    @Benchmark
    public Result<Receipt> oneStep() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, ONE_STEP);
    }

    /**
     * A new key whose work runs three steps, each journaled before the next starts.
     *
     * @return the result
     */
    @Benchmark
    public Result<Receipt> threeSteps() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, THREE_STEPS);
    }
}
