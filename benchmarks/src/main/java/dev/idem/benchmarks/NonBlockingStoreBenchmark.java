package dev.idem.benchmarks;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.LatencyHistogram;
import dev.idem.benchmarks.internal.SlowStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
    private IdempotencyEngine engine;
    private ExecutorService pool;
    private String scope;
    private final AtomicLong sequence = new AtomicLong();
    private final LatencyHistogram latencies = new LatencyHistogram();
    private volatile int peakThreads;
    private volatile String peakBreakdown = "";

    /** Opens the backend and the engine. */
    @Setup(Level.Trial)
    public void setUp() {
        env = form == Form.NON_BLOCKING ? Environment.openNonBlocking(backend)
                : Environment.open(backend, StoreBenchmark.LEASE, StoreBenchmark.TTL, false);
        IdempotencyStore slow = new SlowStore(env.store(), STORE_DELAY);
        AtomicInteger n = new AtomicInteger();
        pool = Executors.newFixedThreadPool(poolThreads, r -> {
            Thread t = new Thread(r, "bench-engine-pool-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        engine = IdempotencyEngine.builder().store(slow).lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL)
                .asyncExecutor(pool).maxAsyncCalls(Math.max(IdempotencyEngine.DEFAULT_MAX_ASYNC_CALLS, inFlight))
                .build();
        scope = "bench-nb-" + UUID.randomUUID();
    }

    /** Prints and clears what the iteration measured. */
    @TearDown(Level.Iteration)
    public void report() {
        System.out.println(summary());
        latencies.clear();
        peakThreads = 0;
    }

    /** What the last invocations measured, on one line. */
    String summary() {
        return String.format(Locale.ROOT, "nonblocking backend=%s form=%s pool=%d calls=%d p50=%.1fms p99=%.1fms"
                + " peakPlatformThreads=%d (%s)", backend, form, poolThreads, latencies.count(),
                latencies.quantile(0.5) / 1e6, latencies.quantile(0.99) / 1e6, peakThreads, peakBreakdown);
    }

    /** Closes the engine, its pool and the backend. */
    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        pool.shutdownNow();
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
        long base = sequence.getAndAdd(inFlight);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<CompletableFuture<Result<Receipt>>> answers = new ArrayList<>(inFlight);
        AtomicInteger pending = new AtomicInteger(inFlight);
        Thread sampler = new Thread(() -> sample(threads, pending), "bench-thread-sampler");
        sampler.setDaemon(true);
        sampler.start();
        for (int i = 0; i < inFlight; i++) {
            long started = System.nanoTime();
            CompletableFuture<Result<Receipt>> answer = engine.executeAsync(
                    dev.idem.api.IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "k" + (base + i)),
                    Documents.PAYMENT, Receipt.class, ctx -> CompletableFuture.completedFuture(Receipt.OK));
            answer.whenComplete((r, e) -> {
                synchronized (latencies) {
                    latencies.record(System.nanoTime() - started);
                }
                pending.decrementAndGet();
            });
            answers.add(answer);
        }
        int stored = 0;
        for (CompletableFuture<Result<Receipt>> a : answers) {
            stored += a.get(10, TimeUnit.MINUTES).stored() ? 1 : 0;
        }
        sampler.join(TimeUnit.SECONDS.toMillis(10));
        return stored;
    }

    /** Samples the live platform threads every 20 ms while calls are pending; keeps the peak and its breakdown. */
    private void sample(ThreadMXBean threads, AtomicInteger pending) {
        while (pending.get() > 0) {
            int live = threads.getThreadCount();
            if (live > peakThreads) {
                peakThreads = live;
                peakBreakdown = breakdown(threads);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static String breakdown(ThreadMXBean threads) {
        int io = 0;
        int server = 0;
        int engine = 0;
        int other = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t == null) {
                continue;
            }
            String name = t.getThreadName();
            if (name.startsWith("aws-java-sdk-NettyEventLoop") || name.startsWith("sdk-async-response")
                    || name.startsWith("lettuce-") || name.contains("EventLoop")) {
                io++;
            } else if (name.startsWith("qtp") || name.contains("jetty") || name.startsWith("Scheduler-")
                    || name.contains("sqlite") || name.startsWith("DynamoDB")) {
                server++;
            } else if (name.startsWith("bench-engine-pool-") || name.startsWith("idem-")) {
                engine++;
            } else {
                other++;
            }
        }
        return "client I/O " + io + ", in-process server " + server + ", engine " + engine + ", other " + other;
    }
}
