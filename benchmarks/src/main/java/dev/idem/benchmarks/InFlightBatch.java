package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.benchmarks.internal.LatencyHistogram;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Batches of asynchronous calls started at once ({@code executeAsync} on new keys, work that
 * answers at once) on an engine whose async executor is a fixed pool of platform threads, as the
 * async benchmarks measure them: each call's latency from its own start, and the most live
 * platform threads while the batch was in flight, sampled every 10 ms on a thread of its own
 * (never counted) and split by kind (kinds in alphabetical order). One place, so every async table is measured the same way.
 */
final class InFlightBatch implements AutoCloseable {
    /** The name of the sampling thread, which is never counted. */
    static final String SAMPLER = "bench-thread-sampler";
    /** How the engine pool's threads are named. */
    static final String POOL_THREAD = "bench-engine-pool-";

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ExecutorService pool;
    private final IdempotencyEngine engine;
    private final Predicate<String> counted;
    private final Function<String, String> kind;
    private final String scope = "bench-batch-" + UUID.randomUUID();
    private final AtomicLong sequence = new AtomicLong();
    private final LatencyHistogram latencies = new LatencyHistogram();
    private volatile int peak;
    private volatile String breakdown = "";

    /**
     * @param store the store the engine uses
     * @param poolThreads the platform threads of the engine's async executor
     * @param maxCalls the most calls a batch starts
     * @param counted which threads (by name) count, besides never the sampler
     * @param kind the kind of a counted thread (by name), for the breakdown
     */
    InFlightBatch(IdempotencyStore store, int poolThreads, int maxCalls, Predicate<String> counted,
            Function<String, String> kind) {
        this.counted = counted;
        this.kind = kind;
        AtomicInteger n = new AtomicInteger();
        pool = Executors.newFixedThreadPool(poolThreads, r -> {
            Thread t = new Thread(r, POOL_THREAD + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        engine = IdempotencyEngine.builder().store(store).lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL)
                .asyncExecutor(pool).maxAsyncCalls(Math.max(IdempotencyEngine.DEFAULT_MAX_ASYNC_CALLS, maxCalls))
                .build();
    }

    /**
     * Starts {@code calls} calls on new keys at once and waits for all of them.
     *
     * @param calls how many
     * @return how many were stored (all of them)
     * @throws Exception if a call failed
     */
    int run(int calls) throws Exception {
        long base = sequence.getAndAdd(calls);
        List<CompletableFuture<Result<Receipt>>> answers = new ArrayList<>(calls);
        AtomicInteger pending = new AtomicInteger(calls);
        Thread sampler = new Thread(() -> sample(pending), SAMPLER);
        sampler.setDaemon(true);
        sampler.start();
        for (int i = 0; i < calls; i++) {
            long started = System.nanoTime();
            CompletableFuture<Result<Receipt>> answer = engine.executeAsync(
                    IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "k" + (base + i)),
                    Documents.PAYMENT, Receipt.class, ctx -> CompletableFuture.completedFuture(Receipt.OK));
            answer.whenComplete((r, e) -> {
                long took = System.nanoTime() - started;
                synchronized (latencies) {
                    latencies.record(took);
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

    /** The latencies of the batches since the last {@link #clear()}. */
    LatencyHistogram latencies() {
        return latencies;
    }

    /** The most counted live threads seen while a batch was in flight since the last {@link #clear()}. */
    int peakThreads() {
        return peak;
    }

    /** The peak's threads by kind, such as {@code client I/O 4, engine 9}. */
    String peakBreakdown() {
        return breakdown;
    }

    /** The counted live threads now. */
    int liveThreads() {
        int n = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && counts(t.getThreadName())) {
                n++;
            }
        }
        return n;
    }

    /** Forgets the latencies and the peak. */
    void clear() {
        latencies.clear();
        peak = 0;
    }

    /** Closes the engine and its pool. */
    @Override
    public void close() {
        engine.close();
        pool.shutdownNow();
    }

    private boolean counts(String name) {
        return !name.equals(SAMPLER) && counted.test(name);
    }

    private void sample(AtomicInteger pending) {
        while (pending.get() > 0) {
            int live = liveThreads();
            if (live > peak) {
                peak = live;
                breakdown = split();
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private String split() {
        Map<String, Integer> byKind = new TreeMap<>();
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && counts(t.getThreadName())) {
                byKind.merge(kind.apply(t.getThreadName()), 1, Integer::sum);
            }
        }
        StringBuilder out = new StringBuilder();
        byKind.forEach((k, n) -> out.append(out.length() == 0 ? "" : ", ").append(k).append(' ').append(n));
        return out.toString();
    }
}
