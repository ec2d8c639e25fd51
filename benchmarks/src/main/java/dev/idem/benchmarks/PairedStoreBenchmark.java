package dev.idem.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * The split of {@link StoreBenchmark} measured side by side: every invocation makes one call
 * of each of the engine, the store adapter and the raw operation on the same store (for the
 * chosen path), in an order that rotates from one invocation to the next, and adds each call's
 * elapsed time and thread CPU time to its own counter. The ratios of those sums (engine over
 * adapter, adapter over raw) compare calls made microseconds apart, so a host that speeds up or
 * slows down during the run moves all three alike; three separate JMH benchmarks are measured
 * minutes apart, and on a shared host the same call moved by 2x within that time.
 *
 * <p>The counters ({@code engineNanos}, {@code adapterNanos}, {@code rawNanos}, the matching
 * {@code ...CpuNanos} and {@code calls}) are JMH secondary results; the report divides them.
 * The primary score, the time of the three calls together, is not a goal of its own. Reading
 * the thread CPU clock costs each call the same fraction of a microsecond, so it cancels out of
 * the differences.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PairedStoreBenchmark {
    /** Which call the three make. */
    public enum Path {
        /** A new key: claim and complete ({@code engineFirst}, {@code adapterFirst}, {@code rawFirst}). */
        FIRST,
        /** A claim that finds the completed record ({@code engineReplay}, {@code adapterReplay}, {@code rawReplay}). */
        REPLAY
    }

    /** The store under test. */
    @Param({"MEMORY", "H2", "POSTGRES", "MARIADB", "REDIS", "REDIS_CLUSTER", "DYNAMODB"})
    public Backend backend;

    /** The path under test. */
    @Param({"FIRST", "REPLAY"})
    public Path path;

    /**
     * Microseconds the thread sleeps before each call (0 unless set): on the memory store this
     * gives every call the context switch a network round trip gives it, so the engine's own
     * cost can be told from the cost of running its code again after the thread slept.
     */
    @Param({"0"})
    public int pauseMicros;

    private StoreBenchmark store;

    /** The sums of one iteration, per call: elapsed and thread CPU nanoseconds, and how many. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Split {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        /** Elapsed nanoseconds of the engine's calls. */
        public long engineNanos;
        /** Elapsed nanoseconds of the adapter's calls. */
        public long adapterNanos;
        /** Elapsed nanoseconds of the raw calls. */
        public long rawNanos;
        /** Thread CPU nanoseconds of the engine's calls. */
        public long engineCpuNanos;
        /** Thread CPU nanoseconds of the adapter's calls. */
        public long adapterCpuNanos;
        /** Thread CPU nanoseconds of the raw calls. */
        public long rawCpuNanos;
        /** Calls of each of the three. */
        public long calls;

        /** Starts the iteration's sums at zero. */
        @Setup(Level.Iteration)
        public void reset() {
            engineNanos = adapterNanos = rawNanos = 0;
            engineCpuNanos = adapterCpuNanos = rawCpuNanos = 0;
            calls = 0;
            if (!THREADS.isCurrentThreadCpuTimeSupported()) {
                throw new IllegalStateException("this JVM does not measure thread CPU time");
            }
        }
    }

    /** The store, its adapter and raw baseline, prepared as {@link StoreBenchmark} prepares them. */
    @Setup
    public void setUp() throws JsonProcessingException {
        store = new StoreBenchmark();
        store.backend = backend;
        store.setUp();
    }

    /** Closes what the setup opened. */
    @TearDown
    public void tearDown() {
        store.tearDown();
    }

    /**
     * One call of each of the three, the first of them rotating.
     *
     * @param split the sums
     * @return the last call's answer
     */
    @Benchmark
    public Object threeCalls(Split split) {
        int first = (int) (split.calls++ % 3);
        Object answer = null;
        for (int i = 0; i < 3; i++) {
            int who = (first + i) % 3;
            if (pauseMicros > 0) {
                LockSupport.parkNanos(pauseMicros * 1_000L);
            }
            long cpu = Split.THREADS.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            answer = call(who);
            long elapsed = System.nanoTime() - start;
            cpu = Split.THREADS.getCurrentThreadCpuTime() - cpu;
            if (who == 0) {
                split.engineNanos += elapsed;
                split.engineCpuNanos += cpu;
            } else if (who == 1) {
                split.adapterNanos += elapsed;
                split.adapterCpuNanos += cpu;
            } else {
                split.rawNanos += elapsed;
                split.rawCpuNanos += cpu;
            }
        }
        return answer;
    }

    /** Call {@code who} (0 engine, 1 adapter, 2 raw) of the chosen path, as {@link StoreBenchmark} makes it. */
    Object call(int who) {
        if (path == Path.FIRST) {
            return who == 0 ? store.engineFirst() : who == 1 ? store.adapterFirst() : store.rawFirst();
        }
        return who == 0 ? store.engineReplay() : who == 1 ? store.adapterReplay() : store.rawReplay();
    }
}
