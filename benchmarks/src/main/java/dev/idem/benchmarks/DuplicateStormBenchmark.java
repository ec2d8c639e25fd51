package dev.idem.benchmarks;

import dev.idem.benchmarks.internal.HybridEnvironment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The duplicate storm of {@link DuplicateStorm}, timed: 100 keys, 100 duplicates each, sent
 * from 16 threads, while the work is in progress (every duplicate a 409) and after it completed
 * (every duplicate a replay). Average time per duplicate, for the hybrid store and PostgreSQL
 * alone (the statement counts per duplicate are asserted by {@code HybridBenchmarksTest}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DuplicateStormBenchmark {
    static final int KEYS = 100;
    static final int DUPLICATES = 100;
    static final int THREADS = 16;

    /** The store under test. */
    @Param({"HYBRID", "POSTGRES"})
    public HybridEnvironment.Kind store;

    private DuplicateStorm storm;

    /** Holds 100 keys in progress, completes 100 others and replays each once. */
    @Setup
    public void setUp() {
        storm = DuplicateStorm.open(store, KEYS, DUPLICATES, THREADS);
    }

    /** Lets the held work go and closes the clients. */
    @TearDown
    public void tearDown() {
        storm.close();
    }

    /** 10,000 duplicates of work in progress. */
    @Benchmark
    @OperationsPerInvocation(KEYS * DUPLICATES)
    public long duplicatesInProgress() {
        return storm.inFlightStorm();
    }

    /** 10,000 duplicates of completed work. */
    @Benchmark
    @OperationsPerInvocation(KEYS * DUPLICATES)
    public long duplicatesReplayed() {
        return storm.replayStorm();
    }
}
