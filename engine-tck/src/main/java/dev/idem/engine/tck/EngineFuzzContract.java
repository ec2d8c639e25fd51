package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Engine-level fuzz over the store under test: three engines (two on one store instance,
 * one on the other) on one backend, several callers sending duplicates of a few requests at
 * once, and work that at random fails transiently, fails for good, or lets its lease lapse
 * before it finishes. Executions are counted from outside the engine, by key and attempt
 * (each claim is one attempt, so one lease).
 *
 * <p>What must hold, whatever the interleaving: the work runs at most once per lease; at most
 * one execution per key ends in a stored result, and every caller that gets a result gets
 * that one; a key ends with a value or with a final failure, never both; once either is
 * stored, a later duplicate replays it without running anything. An adapter's test extends
 * this class and implements {@link #createFixture()}. Seeded; modest sizes, so it runs in
 * seconds.
 */
@Timeout(120)
public abstract class EngineFuzzContract {
    private static final int KEYS = 4;
    private static final int CALLERS = 4;
    private static final int ROUNDS = 8;
    private static final Duration TTL = Duration.ofMinutes(10);

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private final List<IdempotencyEngine> engines = new ArrayList<>();
    private String scope;

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /** A final failure of the work: the classifier stores it. */
    static final class Declined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Declined() {
            super("declined (simulated)", null, false, false);
        }
    }

    /** A transient failure of the work: the engine releases the key. */
    static final class Flaky extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Flaky() {
            super("flaky (simulated)", null, false, false);
        }
    }

    @BeforeEach
    final void setUpFuzz() throws Exception {
        fixture = createFixture();
        scope = "fuzz-" + UUID.randomUUID();
        FailureClassifier classifier = e -> e instanceof Declined
                ? FailureDecision.finalFailure("declined", "card declined") : FailureDecision.transientFailure();
        for (int i = 0; i < 3; i++) {
            engines.add(IdempotencyEngine.builder().store(i == 2 ? fixture.otherStore() : fixture.store())
                    .lease(fixture.lease()).ttl(TTL).failureClassifier(classifier).build());
        }
    }

    @AfterEach
    final void tearDownFuzz() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** What the callers saw of one key. */
    private static final class Seen {
        final Map<Integer, AtomicInteger> executionsPerAttempt = new ConcurrentHashMap<>();
        final List<String> values = Collections.synchronizedList(new ArrayList<>());
        final List<String> freshValues = Collections.synchronizedList(new ArrayList<>());
        final List<String> finalFailures = Collections.synchronizedList(new ArrayList<>());
    }

    @Test
    void duplicatesFailuresAndLapsedLeasesNeverRunTheWorkTwicePerLease() throws Exception {
        for (long seed = 1; seed <= 2; seed++) {
            fuzz(seed, false);
        }
    }

    /**
     * The same races with half the calls made through {@code executeAsync}, whose work returns a
     * stage that completes at once, on another thread, or exceptionally: blocking and
     * asynchronous callers of one key keep each other's guarantees.
     */
    @Test
    void asynchronousCallersMixedWithBlockingOnesKeepTheSameInvariants() throws Exception {
        ExecutorService stages = Executors.newCachedThreadPool();
        try {
            this.stages = stages;
            fuzz(3, true);
        } finally {
            stages.shutdownNow();
        }
    }

    private ExecutorService stages;

    /**
     * Many waiting duplicates (blocking and asynchronous, on three engines with the executor shapes
     * applications run) on five hot keys whose work stays pending for two and a half leases: each
     * key's work runs once, every caller gets its value, lease renewals never wait behind the
     * duplicates' claims, and the duplicates' polls of a key are shared (see {@code HotKeyLoad}).
     * Time is the store's clock, stepped by the test.
     */
    @Test
    void manyWaitingDuplicatesOnHotKeysNeverTakeALiveWorkersKey() throws Exception {
        HotKeyLoad.asConfigured(fixture).run();
    }

    /**
     * A key claimed under one fingerprint version (plain, or keyed under a first secret) and its
     * duplicates on an engine that turned keyed fingerprints on (or rotated the secret): waiters
     * sharing one poll (blocking and asynchronous), a fail-fast caller's own claim, a waiter's own
     * polls and the near cache all see the same request and replay its outcome (see
     * {@code FingerprintVersionChange}).
     *
     * @param change how the duplicates' engine differs from the holder's
     * @throws Exception if the run fails
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(FingerprintVersionChange.Change.class)
    void everyWaitingPathReplaysAcrossAFingerprintVersionChange(FingerprintVersionChange.Change change)
            throws Exception {
        new FingerprintVersionChange(fixture).run(change);
    }

    private void fuzz(long seed, boolean mixAsync) throws Exception {
        boolean simulated = fixture.clockIsSimulated();
        // On a real clock every lapse is a real wait: allow a couple per run.
        AtomicInteger lapsesLeft = new AtomicInteger(simulated ? Integer.MAX_VALUE : 2);
        List<IdempotencyKey> keys = new ArrayList<>();
        Map<IdempotencyKey, Seen> seen = new HashMap<>();
        for (int k = 0; k < KEYS; k++) {
            IdempotencyKey key = IdempotencyKey.of(scope, "charge", "order-" + seed + "-" + k);
            keys.add(key);
            seen.put(key, new Seen());
        }
        CyclicBarrier round = new CyclicBarrier(CALLERS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CALLERS; c++) {
            Random rnd = new Random(seed * 1_000 + c);
            threads.add(new Thread(() -> {
                try {
                    for (int r = 0; r < ROUNDS; r++) {
                        round.await(60, TimeUnit.SECONDS);
                        IdempotencyKey key = keys.get(rnd.nextInt(KEYS));
                        call(engines.get(rnd.nextInt(engines.size())), key, seen.get(key), seed, lapsesLeft,
                                mixAsync && rnd.nextBoolean());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    round.reset();
                }
            }, "tck-fuzz-" + c));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(90));
            assertThat(t.isAlive()).as("fuzz caller %s still running", t.getName()).isFalse();
        }
        if (failure.get() != null) {
            throw new AssertionError("a fuzz caller failed", failure.get());
        }
        // Quiescent now; a duplicate of a settled key must replay without running anything.
        for (IdempotencyKey key : keys) {
            Seen s = seen.get(key);
            checkInvariants(key, s);
            if (s.values.isEmpty() && s.finalFailures.isEmpty()) {
                continue;
            }
            AtomicInteger ran = new AtomicInteger();
            try {
                Result<String> r = engines.get(0).execute(key, request(key), String.class, ctx -> {
                    ran.incrementAndGet();
                    return "late";
                });
                assertThat(s.finalFailures).as("%s has a stored final failure", key).isEmpty();
                assertThat(r.replayed()).isTrue();
                assertThat(r.value()).isEqualTo(s.values.get(0));
            } catch (ReplayedFailureException e) {
                assertThat(s.values).as("%s has a stored value", key).isEmpty();
                assertThat(e.code()).isEqualTo("declined");
            }
            assertThat(ran.get()).as("work run for a settled key %s", key).isZero();
        }
    }

    private static Map<String, Object> request(IdempotencyKey key) {
        return Map.of("order", key.key(), "amount", 1000);
    }

    private void call(IdempotencyEngine engine, IdempotencyKey key, Seen s, long seed, AtomicInteger lapsesLeft,
            boolean async) throws InterruptedException {
        try {
            Work<String> work = ctx -> {
                int attempt = ctx.attempt();
                s.executionsPerAttempt.computeIfAbsent(attempt, a -> new AtomicInteger()).incrementAndGet();
                int dice = new Random(seed * 7_919 + key.key().hashCode() * 31L + attempt).nextInt(100);
                if (dice < 20) {
                    throw new Flaky();
                }
                if (dice < 30) {
                    throw new Declined();
                }
                if (dice < 55 && lapsesLeft.getAndDecrement() > 0) {
                    // The worker stalls past its lease; a duplicate may take the key over meanwhile.
                    fixture.advance(fixture.lease());
                }
                return "value-" + key.key() + "-" + attempt;
            };
            Result<String> r = async ? callAsync(engine, key, work) : engine.execute(key, request(key), String.class, work);
            s.values.add(r.value());
            if (!r.replayed()) {
                s.freshValues.add(r.value());
            }
        } catch (ReplayedFailureException e) {
            s.finalFailures.add(e.code());
        } catch (FinalFailureException e) {
            s.finalFailures.add(e.code());
        } catch (Flaky | RequestInProgressException | LeaseLostException expected) {
            // A transient failure released the key; a duplicate met a live lease; a stale worker was fenced out.
        }
    }

    /** The asynchronous call of the same work: its stage completes at once, later on another thread, or fails. */
    private Result<String> callAsync(IdempotencyEngine engine, IdempotencyKey key, Work<String> work)
            throws InterruptedException {
        CompletableFuture<Result<String>> answer = engine.executeAsync(key, request(key), String.class, ctx -> {
            String value;
            try {
                value = work.execute(ctx);
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
            return ctx.attempt() % 2 == 0 ? CompletableFuture.completedFuture(value)
                    : CompletableFuture.supplyAsync(() -> value, stages);
        });
        try {
            return answer.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new AssertionError("the async call of " + key + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the async call of " + key + " never answered", e);
        }
    }

    private static void checkInvariants(IdempotencyKey key, Seen s) {
        s.executionsPerAttempt.forEach((attempt, n) ->
                assertThat(n.get()).as("executions of %s in attempt (lease) %d", key, attempt).isEqualTo(1));
        assertThat(s.freshValues).as("executions of %s whose result was stored", key).hasSizeLessThanOrEqualTo(1);
        assertThat(s.values.stream().distinct()).as("results callers got for %s", key).hasSizeLessThanOrEqualTo(1);
        if (!s.freshValues.isEmpty()) {
            assertThat(s.values).as("results for %s", key).allMatch(v -> v.equals(s.freshValues.get(0)));
        }
        assertThat(s.values.isEmpty() || s.finalFailures.isEmpty())
                .as("%s ended both with a value %s and a final failure %s", key, s.values, s.finalFailures).isTrue();
    }
}
