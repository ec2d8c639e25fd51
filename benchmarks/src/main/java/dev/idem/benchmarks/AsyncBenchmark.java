package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * Many keys in flight at once ({@link #IN_FLIGHT} new keys per invocation, each with work that
 * waits {@link #WORK_LATENCY} for a downstream answer): the asynchronous call against the
 * blocking call on a pool of {@link #PLATFORM_THREADS} platform threads and on a virtual thread
 * per call (JDK 21+; on an older JDK that mode is skipped with a message). Throughput in calls
 * per second; the JVM's peak live thread count at the end of each trial is printed
 * ({@code threads peak=...}), so the threads each mode uses can be compared.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AsyncBenchmark {
    /** Calls in flight per invocation. */
    public static final int IN_FLIGHT = 1000;
    /** What each call's downstream effect takes. */
    public static final Duration WORK_LATENCY = Duration.ofMillis(2);
    /** The platform threads of the blocking mode's pool. */
    public static final int PLATFORM_THREADS = 64;

    /** How calls are made. */
    public enum Caller {
        /** {@code executeAsync}, the work a stage completed by a timer. */
        ASYNC,
        /** {@code execute} on a fixed pool of platform threads, the work sleeping. */
        SYNC_PLATFORM,
        /** {@code execute} on a virtual thread per call, the work sleeping. */
        SYNC_VIRTUAL
    }

    /** The store under test. */
    @Param({"MEMORY", "REDIS"})
    public Backend backend;

    /** The caller under test. */
    @Param({"ASYNC", "SYNC_PLATFORM", "SYNC_VIRTUAL"})
    public Caller caller;

    private Environment env;
    private IdempotencyEngine engine;
    private ExecutorService callers;
    /** The downstream's I/O thread: completes each work's stage when its answer is due. */
    private ScheduledExecutorService downstream;
    private String scope;
    private final AtomicLong sequence = new AtomicLong();

    /** Starts the backend, the engine and the caller's threads. */
    @Setup(Level.Trial)
    public void setUp() {
        if (caller == Caller.SYNC_VIRTUAL && virtualThreads() == null) {
            throw new IllegalStateException("SYNC_VIRTUAL needs JDK 21+ (virtual threads); this is "
                    + Runtime.version());
        }
        env = Environment.open(backend, StoreBenchmark.LEASE, StoreBenchmark.TTL, false);
        engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL)
                .build();
        // One thread completes every stage, as an HTTP or database client's event loop does. Not
        // CompletableFuture.delayedExecutor: on 2 cores its default pool starts a thread per task, and
        // this benchmark measured thread starts (about 3,000 a second) rather than the engine.
        downstream = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "bench-downstream");
            t.setDaemon(true);
            return t;
        });
        callers = caller == Caller.SYNC_PLATFORM ? Executors.newFixedThreadPool(PLATFORM_THREADS)
                : caller == Caller.SYNC_VIRTUAL ? virtualThreads() : null;
        scope = "bench-async-" + UUID.randomUUID();
    }

    /** Stops what the setup started and prints the peak thread count. */
    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.println("threads peak=" + ManagementFactory.getThreadMXBean().getPeakThreadCount() + " caller="
                + caller + " backend=" + backend);
        if (callers != null) {
            callers.shutdownNow();
        }
        downstream.shutdownNow();
        engine.close();
        env.close();
    }

    /**
     * {@link #IN_FLIGHT} new keys at once, all answered.
     *
     * @return how many were stored (all of them)
     * @throws Exception if a call failed
     */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int inFlight() throws Exception {
        long base = sequence.getAndAdd(IN_FLIGHT);
        int stored = 0;
        if (caller == Caller.ASYNC) {
            List<CompletableFuture<Result<Receipt>>> answers = new ArrayList<>(IN_FLIGHT);
            for (int i = 0; i < IN_FLIGHT; i++) {
                answers.add(engine.executeAsync(key(base + i), Documents.PAYMENT, Receipt.class,
                        ctx -> answerLater(Receipt.OK)));
            }
            for (CompletableFuture<Result<Receipt>> a : answers) {
                stored += a.get(60, TimeUnit.SECONDS).stored() ? 1 : 0;
            }
            return stored;
        }
        List<Future<Result<Receipt>>> answers = new ArrayList<>(IN_FLIGHT);
        for (int i = 0; i < IN_FLIGHT; i++) {
            IdempotencyKey key = key(base + i);
            answers.add(callers.submit(() -> engine.execute(key, Documents.PAYMENT, Receipt.class, ctx -> {
                Thread.sleep(WORK_LATENCY.toMillis());
                return Receipt.OK;
            })));
        }
        for (Future<Result<Receipt>> a : answers) {
            stored += a.get(60, TimeUnit.SECONDS).stored() ? 1 : 0;
        }
        return stored;
    }

    /** A stage its downstream completes {@link #WORK_LATENCY} from now, on the downstream's thread. */
    private <V> CompletableFuture<V> answerLater(V value) {
        CompletableFuture<V> answer = new CompletableFuture<>();
        downstream.schedule(() -> answer.complete(value), WORK_LATENCY.toNanos(), TimeUnit.NANOSECONDS);
        return answer;
    }

    private IdempotencyKey key(long n) {
        return IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "k" + n);
    }

    /** A virtual thread per task (JDK 21+, looked up reflectively: this module targets Java 17), else null. */
    static ExecutorService virtualThreads() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> type = Class.forName("java.lang.Thread$Builder");
            ThreadFactory factory = (ThreadFactory) type.getMethod("factory").invoke(builder);
            return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                    .invoke(null, factory);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
