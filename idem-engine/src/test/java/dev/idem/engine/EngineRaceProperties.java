package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Race invariants with real threads and real takeovers: for any number of threads, keys and
 * transient failure pattern, each key has exactly one first execution that reaches a caller,
 * every caller that got a value got that one, and the holder whose lease lapsed is refused.
 *
 * <p>Takeovers are made to happen, not hoped for: the store and the engines share a
 * {@link MutableClock}, and the first run of each key that would succeed moves the clock
 * past its own lease, then has a separate caller come for the same key and waits (bounded)
 * for it to return. By then the key has been taken over (by that caller or a racing one),
 * so the stalled holder's completion must be refused with {@link LeaseLostException}. No
 * real-time lease is involved, so a loaded machine changes nothing. A caller that cannot
 * get a value before its deadline fails the property rather than recording nothing.
 */
class EngineRaceProperties {
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final long CALLER_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);

    @Property(tries = 25)
    void eachKeySucceedsOnceAndEveryCallerSeesTheStoredValue(
            @ForAll @IntRange(min = 2, max = 12) int threads,
            @ForAll @IntRange(min = 1, max = 5) int keys,
            @ForAll @IntRange(min = 0, max = 3) int failFirstN) throws Exception {
        MutableClock clock = new MutableClock();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).lease(LEASE)
                .listener(events::add).build();
        ConcurrentHashMap<Integer, AtomicInteger> starts = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, AtomicInteger> leaseLost = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, List<String>> firstExecutions = new ConcurrentHashMap<>();
        ExecutorService takers = Executors.newCachedThreadPool();
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<String[]>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    List<String[]> seen = new ArrayList<>();
                    for (int i = 0; i < keys; i++) {
                        int k = (i + thread) % keys;
                        IdempotencyKey key = IdempotencyKey.of("s", "op", "k" + k);
                        Work<String> work = ctx -> {
                            int n = starts.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                            if (n <= failFirstN) {
                                throw new IllegalStateException("transient " + n);
                            }
                            if (n == failFirstN + 1) {
                                // This holder stalls past its lease; another caller comes for the key.
                                clock.advance(LEASE.plusMillis(1));
                                Future<?> taker = takers.submit(() -> callUntilAnswered(engine, key, k, ctx2 -> {
                                    starts.get(k).incrementAndGet();
                                    return "k" + k + "-by-taker-attempt-" + ctx2.attempt();
                                }, firstExecutions, leaseLost));
                                taker.get(CALLER_DEADLINE_NANOS, TimeUnit.NANOSECONDS);
                            }
                            return "k" + k + "-by-" + thread + "-attempt-" + ctx.attempt();
                        };
                        seen.add(new String[] {Integer.toString(k),
                                callUntilAnswered(engine, key, k, work, firstExecutions, leaseLost)});
                    }
                    return seen;
                }));
            }
            // Every caller's answers are gathered before any is checked: a caller may get a replay
            // while the first executor of that key is still recording its own answer.
            List<String[]> answers = new ArrayList<>();
            for (Future<List<String[]>> f : futures) {
                answers.addAll(f.get(60, TimeUnit.SECONDS));
            }
            for (String[] kv : answers) {
                List<String> first = firstExecutions.get(Integer.parseInt(kv[0]));
                assertThat(first).as("first executions of key %s", kv[0]).hasSize(1);
                assertThat(kv[1]).isEqualTo(first.get(0));
            }
        } finally {
            pool.shutdownNow();
            takers.shutdownNow();
        }
        for (int k = 0; k < keys; k++) {
            String key = "k" + k;
            assertThat(firstExecutions.get(k)).as("first executions of key %d", k).hasSize(1);
            assertThat(events.stream().filter(e -> e.type() == Type.LEASE_TAKEN_OVER && e.key().equals(key)))
                    .as("takeovers of key %d", k).isNotEmpty();
            assertThat(leaseLost.get(k)).as("stale holders of key %d refused", k).isNotNull()
                    .satisfies(n -> assertThat(n.get()).isPositive());
            assertThat(starts.get(k).get()).as("starts of key %d", k).isGreaterThanOrEqualTo(failFirstN + 2);
        }
    }

    // A client that retries the same key until it gets a value, as a real one would; it gives up
    // loudly at a generous deadline instead of silently recording nothing.
    private static String callUntilAnswered(IdempotencyEngine engine, IdempotencyKey key, int k, Work<String> work,
            ConcurrentHashMap<Integer, List<String>> firstExecutions, ConcurrentHashMap<Integer, AtomicInteger> leaseLost) {
        long deadline = System.nanoTime() + CALLER_DEADLINE_NANOS;
        while (System.nanoTime() - deadline < 0) {
            try {
                Result<String> r = engine.execute(key, "{}", String.class, work);
                if (!r.replayed()) {
                    firstExecutions.computeIfAbsent(k, x -> new CopyOnWriteArrayList<>()).add(r.value());
                }
                return r.value();
            } catch (LeaseLostException e) {
                leaseLost.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
            } catch (RequestInProgressException | IllegalStateException e) {
                Thread.yield();
            }
        }
        throw new AssertionError("a caller of " + key + " got no value within "
                + TimeUnit.NANOSECONDS.toSeconds(CALLER_DEADLINE_NANOS) + " s");
    }
}
