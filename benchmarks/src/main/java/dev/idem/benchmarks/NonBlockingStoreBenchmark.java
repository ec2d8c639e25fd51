package dev.idem.benchmarks;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.LatencyHistogram;
import dev.idem.benchmarks.internal.SlowStore;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
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
 * {@link #IN_FLIGHT} asynchronous calls started at once ({@code executeAsync}, work that answers
 * at once) against a slow store ({@link #STORE_DELAY} added to every store call), with the
 * engine's async executor a fixed pool of {@code poolThreads} platform threads: over the store's
 * non-blocking form ({@code NON_BLOCKING}: DynamoDB over a {@code DynamoDbAsyncClient}, Redis over
 * Lettuce) or its blocking operations ({@code BLOCKING}: DynamoDB over the synchronous client,
 * Redis over the Jedis adapter, the same server). One invocation is the whole batch (single-shot time). After each iteration it prints
 * the calls' p50 and p99 latency, the JVM's most live platform threads while they were in flight,
 * and of those how many were the client's I/O threads, the in-process server's and the engine
 * pool's ({@code nonblocking ...} lines).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 2)
@Fork(1)
public class NonBlockingStoreBenchmark {
    /** Calls in flight per invocation. */
    public static final int IN_FLIGHT = 10_000;
    /** What the slow store adds to each call. */
    public static final Duration STORE_DELAY = Duration.ofMillis(5);

    /** Which form of the store the engine's async calls use. */
    public enum Form {
        /** The store's non-blocking form. */
        NON_BLOCKING,
        /** The store's blocking operations, on the engine's async executor. */
        BLOCKING
    }

    /** The backend. */
    @Param({"REDIS", "DYNAMODB"})
    public Backend backend;

    /** The form under test. */
    @Param({"NON_BLOCKING", "BLOCKING"})
    public Form form;

    /** The platform threads of the engine's async executor. */
    @Param({"8", "64", "256"})
    public int poolThreads;

    /** Calls per invocation (the smoke test lowers it). */
    int inFlight = IN_FLIGHT;

    private Environment env;
    private InFlightBatch batch;

    /** Opens the backend and the engine. */
    @Setup(Level.Trial)
    public void setUp() {
        env = form == Form.NON_BLOCKING ? Environment.openNonBlocking(backend)
                : Environment.open(backend, StoreBenchmark.LEASE, StoreBenchmark.TTL, false);
        IdempotencyStore slow = new SlowStore(env.store(), STORE_DELAY);
        batch = new InFlightBatch(slow, poolThreads, inFlight, name -> true, NonBlockingStoreBenchmark::kind);
    }

    /** Prints and clears what the iteration measured. */
    @TearDown(Level.Iteration)
    public void report() {
        System.out.println(summary());
        batch.clear();
    }

    /** What the last invocations measured, on one line. */
    String summary() {
        LatencyHistogram latencies = batch.latencies();
        return String.format(Locale.ROOT, "nonblocking backend=%s form=%s pool=%d calls=%d p50=%.1fms p99=%.1fms"
                + " peakPlatformThreads=%d (%s)", backend, form, poolThreads, latencies.count(),
                latencies.quantile(0.5) / 1e6, latencies.quantile(0.99) / 1e6, batch.peakThreads(), batch.peakBreakdown());
    }

    /** Closes the engine, its pool and the backend. */
    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        env.close();
    }

    /**
     * Starts {@link #IN_FLIGHT} new keys at once and waits for all of them.
     *
     * @return how many were stored (all of them)
     * @throws Exception if a call failed
     */
    @Benchmark
    public int inFlight() throws Exception {
        return batch.run(inFlight);
    }

    private static String kind(String thread) {
        if (thread.startsWith("aws-java-sdk-NettyEventLoop") || thread.startsWith("sdk-async-response")
                || thread.startsWith("lettuce-") || thread.contains("EventLoop")) {
            return "client I/O";
        }
        if (thread.startsWith("qtp") || thread.contains("jetty") || thread.startsWith("Scheduler-")
                || thread.contains("sqlite") || thread.startsWith("DynamoDB")) {
            return "in-process server";
        }
        return thread.startsWith(InFlightBatch.POOL_THREAD) || thread.startsWith("idem-") ? "engine" : "other";
    }
}
