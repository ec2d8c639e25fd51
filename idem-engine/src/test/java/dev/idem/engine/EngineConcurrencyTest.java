package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.time.Sleeper;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real threads, real store, no mocks: duplicates race through barriers and latches. */
@Timeout(60)
class EngineConcurrencyTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant", "pay", k);
    }

    private static <T> List<Object> race(int threads, Task<T> task) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    try {
                        return task.run();
                    } catch (RuntimeException e) {
                        return e;
                    }
                }));
            }
            List<Object> out = new ArrayList<>();
            for (Future<Object> f : futures) {
                out.add(f.get(30, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    interface Task<T> {
        T run() throws Exception;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8, 16, 64})
    void concurrentDuplicatesFailFastAndTheWorkRunsOnce(int threads) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch othersDone = new CountDownLatch(threads - 1);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .listener(e -> {
                    if (e.type() == IdempotencyEvent.Type.IN_PROGRESS_CONFLICT) {
                        othersDone.countDown();
                    }
                }).build();
        List<Object> results = race(threads, () -> engine.execute(key("dup"), "{\"amount\":5}", String.class, ctx -> {
            runs.incrementAndGet();
            // Hold the lease until every duplicate has been turned away.
            assertThat(othersDone.await(20, TimeUnit.SECONDS)).isTrue();
            return "charged";
        }));
        assertThat(runs).hasValue(1);
        assertThat(results.stream().filter(r -> r instanceof Result)).hasSize(1);
        assertThat(results.stream().filter(r -> r instanceof RequestInProgressException)).hasSize(threads - 1);
        assertThat(engine.execute(key("dup"), "{\"amount\":5}", String.class, ctx -> "again").value())
                .isEqualTo("charged");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 8, 64})
    void waitingDuplicatesAllReceiveTheOneResult(int threads) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(threads - 1);
        CountDownLatch finished = new CountDownLatch(1);
        // Waiters "sleep" on the completion latch: they wake when the work is done, never by time.
        Sleeper sleeper = d -> finished.await(d.toMillis(), TimeUnit.MILLISECONDS);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).sleeper(sleeper)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20)))
                .listener(e -> {
                    if (e.type() == IdempotencyEvent.Type.IN_PROGRESS_CONFLICT) {
                        waiting.countDown();
                    }
                }).build();
        List<Object> results = race(threads, () -> engine.execute(key("wait"), "{}", String.class, ctx -> {
            runs.incrementAndGet();
            assertThat(waiting.await(20, TimeUnit.SECONDS)).isTrue();
            finished.countDown();
            return "v" + ctx.attempt();
        }));
        assertThat(runs).hasValue(1);
        assertThat(results).allSatisfy(r -> assertThat(r).isInstanceOf(Result.class));
        assertThat(results.stream().map(r -> (Object) ((Result<?>) r).value())).containsOnly("v1");
        assertThat(results.stream().filter(r -> ((Result<?>) r).replayed())).hasSize(threads - 1);
    }

    // With the jitter pinned, the waiting schedule is exact: equal jitter over a ceiling that
    // doubles from 10 ms to 500 ms, the last sleep cut to what is left of the 2 s bound, one
    // claim per poll plus the final one that finds the bound spent.
    @ParameterizedTest
    @ValueSource(longs = {0L, -1L})
    void aWaitingDuplicateGivesUpAfterItsBound(long jitterBits) {
        MutableClock engineClock = new MutableClock();
        FaultyStore counting = new FaultyStore(store);
        List<Duration> sleeps = new ArrayList<>();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(counting).ticker(ClockTicker.of(engineClock))
                .random(() -> jitterBits)
                .sleeper(d -> {
                    sleeps.add(d);
                    engineClock.advance(d);
                })
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(2))).build();
        AtomicInteger giveUps = new AtomicInteger();
        int[] claimsByTheDuplicate = new int[1];
        Object outcome = engine.execute(key("bounded"), "{}", String.class, (Work<String>) ctx -> {
            int before = counting.claims.get();
            try {
                return engine.execute(key("bounded"), "{}", String.class,
                        CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(2))).build(),
                        inner -> "never").value();
            } catch (RequestInProgressException e) {
                giveUps.incrementAndGet();
                return "gave up";
            } finally {
                claimsByTheDuplicate[0] = counting.claims.get() - before;
            }
        }).value();
        assertThat(outcome).isEqualTo("gave up");
        assertThat(giveUps).hasValue(1);
        List<Long> expected = jitterBits == 0L
                ? List.of(5L, 10L, 20L, 40L, 80L, 160L, 250L, 250L, 250L, 250L, 250L, 250L, 185L)
                : List.of(10L, 20L, 40L, 80L, 160L, 320L, 500L, 500L, 370L);
        assertThat(sleeps.stream().map(Duration::toMillis).toList()).isEqualTo(expected);
        assertThat(sleeps.stream().reduce(Duration.ZERO, Duration::plus)).isEqualTo(Duration.ofSeconds(2));
        // Fewer claims than wakes: the engine's waiters of a key share its polls, one per poll interval
        // (10 ms doubling to 500 ms while it stays in progress), and the first answer is the holder's own
        // claim of a moment before. Jitter 0 wakes at 5, 15, 35, 75, 155, 315, 565, 815, ... ms and claims
        // at 15, 35, 75, 155, 315, 815, 1315, 1815; full jitter claims at 10, 30, 70, 150, 310, 630, 1130, 1630.
        assertThat(claimsByTheDuplicate[0]).as("polls").isEqualTo(8);
    }

    @Test
    void aWaitingDuplicateTakesOverWhenTheHolderCrashed() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .sleeper(d -> clock.advance(d))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(2))).build();
        // A holder that never completes: claimed directly, as a crashed process leaves it.
        byte[] fp = engine.parts.fingerprinter().fingerprint("pay", "{}", PointerSet.EMPTY);
        store.claim(key("crashed"), fp, 1, Duration.ofSeconds(30), Duration.ofHours(24));
        Result<String> r = engine.execute(key("crashed"), "{}", String.class, ctx -> "recovered " + ctx.attempt());
        assertThat(r.value()).isEqualTo("recovered 2");
        assertThat(r.replayed()).isFalse();
    }

    @Test
    void aStaleWorkerOnAnotherThreadCannotOverwriteTheTakerOver() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).build();
        CountDownLatch staleStarted = new CountDownLatch(1);
        CountDownLatch takeoverDone = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Object> stale = pool.submit(() -> {
                try {
                    return engine.execute(key("fence"), "{}", String.class, ctx -> {
                        runs.incrementAndGet();
                        staleStarted.countDown();
                        assertThat(takeoverDone.await(20, TimeUnit.SECONDS)).isTrue();
                        return "stale";
                    });
                } catch (LeaseLostException e) {
                    return e;
                }
            });
            assertThat(staleStarted.await(20, TimeUnit.SECONDS)).isTrue();
            clock.advance(Duration.ofSeconds(31));
            Result<String> fresh = engine.execute(key("fence"), "{}", String.class, ctx -> {
                runs.incrementAndGet();
                return "fresh";
            });
            takeoverDone.countDown();
            assertThat(stale.get(20, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
            assertThat(fresh.value()).isEqualTo("fresh");
            assertThat(engine.execute(key("fence"), "{}", String.class, ctx -> "x").value()).isEqualTo("fresh");
            assertThat(runs).hasValue(2);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void manyKeysManyThreadsOneRunPerKey() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20)))
                .sleeper(d -> Thread.onSpinWait()).build();
        int keys = 50;
        AtomicInteger[] runs = new AtomicInteger[keys];
        for (int i = 0; i < keys; i++) {
            runs[i] = new AtomicInteger();
        }
        List<Object> results = race(16, () -> {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < keys; i++) {
                int k = i;
                seen.add(engine.execute(key("many-" + k), "{}", String.class, ctx -> {
                    runs[k].incrementAndGet();
                    return "value-" + k;
                }).value());
            }
            return seen;
        });
        for (AtomicInteger r : runs) {
            assertThat(r).hasValue(1);
        }
        for (Object r : results) {
            assertThat(r).isInstanceOf(List.class);
            List<?> seen = (List<?>) r;
            for (int i = 0; i < keys; i++) {
                assertThat(seen.get(i)).isEqualTo("value-" + i);
            }
        }
    }
}
