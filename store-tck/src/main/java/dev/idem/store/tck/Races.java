package dev.idem.store.tck;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs many threads against many keys at once: every thread performs the action once per
 * key, all threads released together by a barrier, each walking the keys in its own
 * rotated order so that every key sees real contention. Every wait is bounded.
 */
public final class Races {
    private static final long TIMEOUT_SECONDS = 60;

    private Races() {
    }

    /** One thread's action on one key. */
    @FunctionalInterface
    public interface Action<T> {
        /**
         * Acts for {@code thread} on key number {@code key}.
         *
         * @param thread the thread's index, from 0
         * @param key the key's index, from 0
         * @return what the thread saw
         * @throws Exception any failure, which fails the race
         */
        T apply(int thread, int key) throws Exception;
    }

    /**
     * Runs the race and returns, per key, the results of all threads (in completion order).
     *
     * @param <T> the result type
     * @param threads how many threads to start together
     * @param keys how many keys; each thread visits all of them, in a rotated order
     * @param action what each thread does
     * @return per key, the results of all threads
     * @throws AssertionError if any action threw or the race did not finish in time
     * @throws InterruptedException if the wait is interrupted
     */
    public static <T> List<List<T>> run(int threads, int keys, Action<T> action) throws InterruptedException {
        List<List<T>> perKey = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            perKey.add(Collections.synchronizedList(new ArrayList<>()));
        }
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    for (int i = 0; i < keys; i++) {
                        int k = (i + thread) % keys;
                        perKey.get(k).add(action.apply(thread, k));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError("a racing thread failed", e.getCause());
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("race did not finish within " + TIMEOUT_SECONDS + " s", e);
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        return perKey;
    }
}
