package dev.idem.benchmarks;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.benchmarks.internal.DelayingProxy;
import dev.idem.benchmarks.internal.LatencyHistogram;
import dev.idem.benchmarks.internal.Servers;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * The async tail over the non-blocking Redis store: {@code calls} asynchronous calls started at
 * once ({@code executeAsync} on new keys, work that answers at once: a claim and a completion
 * each) through Lettuce (one pipelined connection) to a real redis-server behind a
 * {@link DelayingProxy} that holds every command {@link #STORE_DELAY} before the server sees
 * it: a distant Redis, not a slow in-process store. The engine's async executor is a fixed pool
 * of {@code poolThreads} platform threads. One invocation is the whole batch (single-shot time).
 *
 * <p>After each iteration it prints one {@code asynctail ...} line: the calls' p50, p99 and p999
 * latency (each from the call's own start), the JVM's live platform threads just before the batch
 * and at most while it was in flight, and the peak's breakdown (Lettuce's I/O threads, the
 * engine's pool and its own threads, the rest), never counting the proxy's threads (they stand
 * for the network). With {@code -DasyncTail.out=FILE} (through {@code -jvmArgsAppend}) it also
 * appends that line to FILE. The goal: the p99 the same with 8 and 64 threads, and the threads
 * the same with 1,000 and 10,000 calls.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(1)
public class AsyncTailBenchmark {
    /** What the proxy adds to each store call. */
    public static final Duration STORE_DELAY = Duration.ofMillis(5);

    /** The platform threads of the engine's async executor. */
    @Param({"8", "64"})
    public int poolThreads;

    /** Calls in flight per invocation. */
    @Param({"1000", "10000"})
    public int calls;

    private boolean redisAcquired;
    private DelayingProxy proxy;
    private RedisClient lettuce;
    private InFlightBatch batch;
    private volatile int idleThreads;

    /** Starts Redis, the proxy in front of it, Lettuce through the proxy and the engine. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        int port = Servers.acquireRedis();
        redisAcquired = true;
        try {
            proxy = DelayingProxy.start(Servers.HOST, port, STORE_DELAY);
            lettuce = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(proxy.port())
                    .withTimeout(Duration.ofSeconds(60)).build());
            IdempotencyStore store = RedisIdempotencyStore.create(LettuceScriptClient.of(lettuce));
            if (store.nonBlocking().isEmpty()) {
                throw new IllegalStateException("the Lettuce store has no non-blocking form");
            }
            // The proxy's threads stand for the network: never counted.
            batch = new InFlightBatch(store, poolThreads, calls,
                    name -> !name.startsWith(DelayingProxy.THREAD_PREFIX), AsyncTailBenchmark::kind);
        } catch (IOException | RuntimeException e) {
            tearDown();
            throw e;
        }
    }

    /**
     * Prints (and appends to {@code -DasyncTail.out}) what the iteration measured, then clears it;
     * a warmup iteration's line starts with {@code warmup}.
     *
     * @param iteration the iteration that ended
     */
    @TearDown(Level.Iteration)
    public void report(IterationParams iteration) {
        String line = (iteration.getType() == IterationType.WARMUP ? "warmup " : "") + summary();
        System.out.println(line);
        String out = System.getProperty("asyncTail.out");
        if (out != null && !out.isEmpty()) {
            try {
                Files.writeString(Path.of(out), line + System.lineSeparator(), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        batch.clear();
    }

    /** What the last invocations measured, on one line. */
    String summary() {
        return summaryLine();
    }

    /** The p50 of the last invocations, in nanoseconds. */
    long p50Nanos() {
        return batch.latencies().quantile(0.5);
    }

    private String summaryLine() {
        LatencyHistogram latencies = batch.latencies();
        return String.format(Locale.ROOT, "asynctail pool=%d calls=%d measured=%d delay=%dms p50=%.1fms p99=%.1fms"
                + " p999=%.1fms threadsBefore=%d peakThreads=%d (%s)", poolThreads, calls, latencies.count(),
                STORE_DELAY.toMillis(), latencies.quantile(0.5) / 1e6, latencies.quantile(0.99) / 1e6,
                latencies.quantile(0.999) / 1e6, idleThreads, batch.peakThreads(), batch.peakBreakdown());
    }

    /** Closes the engine, its pool, Lettuce, the proxy and Redis. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (batch != null) {
            batch.close();
        }
        if (lettuce != null) {
            lettuce.shutdown();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (redisAcquired) {
            redisAcquired = false;
            Servers.releaseRedis();
        }
    }

    /**
     * Starts {@code calls} new keys at once and waits for all of them.
     *
     * @return how many were stored (all of them)
     * @throws Exception if a call failed
     */
    @Benchmark
    public int inFlight() throws Exception {
        idleThreads = batch.liveThreads();
        return batch.run(calls);
    }

    private static String kind(String thread) {
        if (thread.startsWith("lettuce-") || thread.contains("EventLoop")) {
            return "client I/O";
        }
        return thread.startsWith(InFlightBatch.POOL_THREAD) || thread.startsWith("idem-") ? "engine" : "other";
    }
}
