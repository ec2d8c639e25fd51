package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Race invariants with real threads: for any number of threads, keys and transient failure
 * pattern, each key's work succeeds at most once, and every caller that got a value got
 * the one value stored for its key.
 */
class EngineRaceProperties {

    @Property(tries = 25)
    void eachKeySucceedsOnceAndEveryCallerSeesTheStoredValue(
            @ForAll @IntRange(min = 2, max = 12) int threads,
            @ForAll @IntRange(min = 1, max = 5) int keys,
            @ForAll @IntRange(min = 0, max = 3) int failFirstN) throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
        ConcurrentHashMap<Integer, AtomicInteger> successes = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, AtomicInteger> starts = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, String> stored = new ConcurrentHashMap<>();
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<String[]>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    List<String[]> seen = new ArrayList<>();
                    // Each caller retries until it sees a value, as a client with the same key would.
                    for (int i = 0; i < keys; i++) {
                        int k = (i + thread) % keys;
                        for (int attempt = 0; attempt < 10_000; attempt++) {
                            try {
                                String v = engine.execute(IdempotencyKey.of("s", "op", "k" + k), "{}", String.class,
                                        ctx -> {
                                            int n = starts.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                                            if (n <= failFirstN) {
                                                throw new IllegalStateException("transient " + n);
                                            }
                                            successes.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                                            String value = "k" + k + "-by-" + thread + "-attempt-" + ctx.attempt();
                                            stored.put(k, value);
                                            return value;
                                        }).value();
                                seen.add(new String[] {Integer.toString(k), v});
                                break;
                            } catch (RequestInProgressException | IllegalStateException e) {
                                Thread.onSpinWait();
                            }
                        }
                    }
                    return seen;
                }));
            }
            for (Future<List<String[]>> f : futures) {
                for (String[] kv : f.get(30, TimeUnit.SECONDS)) {
                    assertThat(kv[1]).isEqualTo(stored.get(Integer.parseInt(kv[0])));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        for (int k = 0; k < keys; k++) {
            assertThat(successes.get(k)).as("successful runs of key %d", k).hasValue(1);
            assertThat(starts.get(k)).as("starts of key %d", k).hasValue(failFirstN + 1);
        }
    }
}
