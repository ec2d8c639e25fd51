package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.LatencyHistogram;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Many threads through one engine (run with JMH {@code -t 1}, {@code 2}, {@code 8}, {@code 64}).
 * {@code DISTINCT}: every call uses a fresh key, so nobody waits for anybody. {@code ONE}:
 * all threads aim at the current key; the call that wins it moves the current key on
 * from inside its work, so at any moment the others collide with a call in progress (409)
 * or with a just-completed one (replay): those are the losers. Throughput counts all calls,
 * with wins and losses as secondary rates; the losers' latency percentiles go to
 * {@code contention-<backend>-<keys>-t<threads>.json} in the directory named by the system
 * property {@value #RESULTS_PROPERTY} (JMH has no per-outcome percentiles).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ContentionBenchmark {
    /** System property: where to write the losers' latency file (not written if unset). */
    public static final String RESULTS_PROPERTY = "idem.bench.results";

    /** The store (memory, and one remote store). */
    @Param({"MEMORY", "REDIS"})
    public Backend backend;

    /** {@code ONE} key for all threads, or {@code DISTINCT} keys. */
    @Param({"ONE", "DISTINCT"})
    public String keys;

    private Environment env;
    private IdempotencyEngine engine;
    private String scope;
    private boolean oneKey;
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong distinct = new AtomicLong();
    private final LatencyHistogram losers = new LatencyHistogram();
    private long wins;
    private final AtomicInteger threads = new AtomicInteger();

    /** Starts the backend and the engine. */
    @Setup
    public void setUp() {
        if (!keys.equals("ONE") && !keys.equals("DISTINCT")) {
            throw new IllegalArgumentException("keys must be ONE or DISTINCT but was " + keys);
        }
        oneKey = keys.equals("ONE");
        env = Environment.open(backend, StoreBenchmark.LEASE, StoreBenchmark.TTL, false);
        engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE)
                .ttl(StoreBenchmark.TTL).build();
        scope = "contention-" + UUID.randomUUID();
    }

    /** Writes the losers' latency file and closes the clients. */
    @TearDown
    public void tearDown() {
        try {
            String dir = System.getProperty(RESULTS_PROPERTY);
            if (dir != null && !dir.isBlank()) {
                writeLosers(Path.of(dir), threads.get());
            }
        } finally {
            env.close();
        }
    }

    /**
     * One call: a win or a loss. Outcomes are counted only inside JMH's measured window
     * ({@link Control}): with many threads on few cores the synchronised ramp-up and
     * ramp-down around an iteration is long, and counting there would inflate the rates.
     */
    @Benchmark
    public Object execute(Outcomes outcomes, Control control) {
        boolean measured = control.startMeasurement && !control.stopMeasurement;
        long start = System.nanoTime();
        if (!oneKey) {
            IdempotencyKey key = IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "d" + distinct.incrementAndGet());
            Result<Receipt> r = engine.execute(key, Documents.PAYMENT, Receipt.class, ctx -> Receipt.OK);
            if (measured) {
                outcomes.wins++;
            }
            return r;
        }
        long g = generation.get();
        IdempotencyKey key = IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "g" + g);
        Object outcome;
        boolean won;
        try {
            Result<Receipt> r = engine.execute(key, Documents.PAYMENT, Receipt.class, ctx -> {
                generation.compareAndSet(g, g + 1);
                return Receipt.OK;
            });
            won = !r.replayed();
            outcome = r;
        } catch (RequestInProgressException e) {
            won = false;
            outcome = e;
        }
        if (!measured) {
            return outcome;
        }
        if (won) {
            outcomes.wins++;
        } else {
            outcomes.losses++;
            outcomes.latencies.record(System.nanoTime() - start);
        }
        return outcome;
    }

    synchronized void merge(LatencyHistogram h, long threadWins) {
        losers.add(h);
        wins += threadWins;
    }

    private synchronized void writeLosers(Path dir, int threads) {
        String json = String.format(Locale.ROOT,
                "{\"backend\":\"%s\",\"keys\":\"%s\",\"threads\":%d,\"wins\":%d,\"losses\":%d,"
                        + "\"loserP50Micros\":%.1f,\"loserP99Micros\":%.1f,\"loserP999Micros\":%.1f}%n",
                backend, keys, threads, wins, losers.count(), losers.quantile(0.50) / 1e3,
                losers.quantile(0.99) / 1e3, losers.quantile(0.999) / 1e3);
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("contention-" + backend.name().toLowerCase(Locale.ROOT) + "-"
                    + keys.toLowerCase(Locale.ROOT) + "-t" + threads + ".json"), json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Per-thread outcome counters (reported by JMH as secondary rates) and the thread's
     * loser latencies, handed to the shared state after each measurement iteration.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Outcomes {
        /** Calls that ran the work. */
        public long wins;
        /** Calls that met the key in progress or completed. */
        public long losses;
        final LatencyHistogram latencies = new LatencyHistogram();

        /** Counts this thread in (JMH gives every benchmark thread its own instance). */
        @Setup
        public void join(ContentionBenchmark shared) {
            shared.threads.incrementAndGet();
        }

        /** Starts each iteration from zero. */
        @Setup(Level.Iteration)
        public void reset() {
            wins = 0;
            losses = 0;
            latencies.clear();
        }

        /** Keeps measurement iterations only (warmup latencies are JIT noise). */
        @TearDown(Level.Iteration)
        public void handOver(ContentionBenchmark shared, IterationParams iteration) {
            if (iteration.getType() == IterationType.MEASUREMENT) {
                shared.merge(latencies, wins);
            }
        }
    }
}
