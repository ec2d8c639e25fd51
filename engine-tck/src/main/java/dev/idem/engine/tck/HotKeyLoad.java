package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Many waiting duplicates on a few hot keys whose work stays pending for two and a half leases,
 * over the store under test: the load under which a live worker must keep its key. Three engines
 * (two processes' store instances) with the executor shapes applications run: an application's
 * small bounded pool (4 platform threads), the engine's default (on JDK 17 a bounded pool of
 * max(8, 4 &times; cores) platform threads, on 21+ a virtual thread per task) and a thread per
 * task. Of the five keys, three are held by asynchronous work (one per engine) and two by blocking
 * work that renews its own lease; each key has 8 asynchronous waiting duplicates per engine and one
 * blocking one on each of the two engines without the small pool.
 *
 * <p>Time is the store's clock, stepped by a sixth of the lease, and the engines' timers run at
 * each step, so nothing depends on how fast the machine is. While the work is pending, the claims
 * of the hot keys are held at a gate, as by a store that answers none of them (the small pool's
 * threads fill with held claims first); at each step every lease that has run down to a third of
 * the lease must be renewed (a correct heartbeat renews a third of a lease after the last
 * renewal): a renewal that queues behind waiting duplicates' claims (in an executor's queue or in
 * the store's connection pool) never comes, and the run fails saying so. After the work ends, from outside:
 * each key's work ran once, every caller got that execution's value (replayed, except its own
 * caller), and the store saw at most two claims of a key per engine per step however many
 * duplicates wait (one shared poll per key per interval in an engine).
 *
 * <p>{@link #overNonBlockingForm} runs the same over the store's non-blocking form: each engine
 * whose store instance offers one reaches it through a client of {@value #CLIENT_CONNECTIONS} connections (its
 * {@code maxCallsInFlight()}, as a client sized to its HTTP pool declares), whose answers come later
 * the more calls it holds; the held claims keep their connections. Fewer connections than hot keys:
 * an engine that lets its waiters' claims take every connection leaves its holder's renewal queued
 * behind them, and the run fails at the first renewal due.
 */
final class HotKeyLoad {
    private static final int KEYS = 5;
    private static final int ASYNC_WAITERS = 8;
    private static final int BLOCKING_WAITERS = 1;
    private static final int STEPS_PER_LEASE = 6;
    private static final int PENDING_STEPS = 15;
    private static final int SMALL_POOL = 4;
    /** How long a step may wait for what a correct engine does at once (bounds a failing run, not a passing one). */
    private static final Duration REAL_BOUND = Duration.ofSeconds(20);
    /** How long each tenth of a second waits for the small pool's threads to fill with held claims. */
    private static final Duration FILL_WAIT = Duration.ofMillis(50);
    /** How far a store may round the lease it keeps from the one it reports. */
    private static final Duration STORE_ROUNDING = Duration.ofSeconds(1);
    /** Connections of each engine's client of the non-blocking form: fewer than the hot keys. */
    static final int CLIENT_CONNECTIONS = 4;

    private final StoreFixture fixture;
    private final BiFunction<IdempotencyEngineBuilder, Executor, IdempotencyEngineBuilder> configure;
    private final Runnable afterHolderRenewal;
    /** The connections of each engine's client of the non-blocking form; 0 for a run without it. */
    private final int nonBlockingWidth;
    /** The calls in flight that client declares (its connections, unless a test says otherwise). */
    private final int declaredWidth;
    private final Duration lease;
    private final Duration step;
    private final SteppedTime time;
    private final ManualScheduler timer;
    private final String scope = "load-" + UUID.randomUUID();
    private final List<Hot> keys = new ArrayList<>();
    private final LoadProbe probe;
    private final List<IdempotencyEngine> engines = new ArrayList<>();
    private final List<String> shapes = new ArrayList<>();
    /** Per engine, its claims held at the gate now. */
    private final List<AtomicInteger> held = new ArrayList<>();
    private final List<ExecutorService> pools = new ArrayList<>();
    private final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());

    /** One hot key: its executions, the held work, what its callers got. */
    private final class Hot {
        final IdempotencyKey key;
        final int holder;
        final boolean blockingHolder;
        final AtomicInteger executions = new AtomicInteger();
        final String value;
        final CompletableFuture<String> held = new CompletableFuture<>();
        final CountDownLatch started = new CountDownLatch(1);
        final List<String> answers = Collections.synchronizedList(new ArrayList<>());
        volatile boolean released;
        /** When a blocking holder's next renewal falls due, on the ticker (for the failure message). */
        volatile long renewalDue;
        int callers;

        Hot(int k) {
            this.key = IdempotencyKey.of(scope, "charge", "hot-" + k);
            this.holder = k < 3 ? k : (k == 3 ? 0 : 2);
            this.blockingHolder = k >= 3;
            this.value = "value-" + k + "-" + UUID.randomUUID();
        }

        /** The work of every caller of this key: the first execution is held, any later one is a second run. */
        AsyncWork<String> asyncWork() {
            return ctx -> {
                int n = executions.incrementAndGet();
                if (n > 1) {
                    return CompletableFuture.completedFuture("run " + n + " of " + key.key());
                }
                started.countDown();
                return held;
            };
        }

        Work<String> blockingWork() {
            return ctx -> {
                int n = executions.incrementAndGet();
                if (n > 1) {
                    return "run " + n + " of " + key.key();
                }
                started.countDown();
                // Renews its own lease every third of it, as long blocking work must, until released.
                // Each renewal falls due a third of a lease after the last one fell due, as the engine's
                // heartbeat counts, not after it answered: the steps go on while this thread waits for a
                // core, and counting from a reading taken after that wait put the next renewal past the
                // lease it had just got (a run that failed on a loaded machine, the engine being right).
                renewalDue = time.now() + lease.toNanos() / 3;
                while (time.sleepUntil(renewalDue, () -> released)) {
                    ctx.extendLease(lease);
                    afterHolderRenewal.run();
                    renewalDue += lease.toNanos() / 3;
                }
                return value;
            };
        }

        void answered(String caller, Result<String> r, Throwable failure, boolean first) {
            if (failure != null) {
                answers.add(caller + " failed: " + failure);
            } else if (r.replayed() == first) {
                answers.add(caller + " got " + r.value() + (r.replayed() ? " replayed" : " not replayed"));
            } else {
                answers.add(r.value());
            }
            synchronized (HotKeyLoad.this) {
                HotKeyLoad.this.notifyAll();
            }
        }
    }

    HotKeyLoad(StoreFixture fixture,
            BiFunction<IdempotencyEngineBuilder, Executor, IdempotencyEngineBuilder> configure) {
        this(fixture, configure, () -> { });
    }

    /**
     * @param afterHolderRenewal run by a blocking holder after each of its renewals (a test's way
     *     to keep that thread off a core while the steps go on)
     */
    HotKeyLoad(StoreFixture fixture,
            BiFunction<IdempotencyEngineBuilder, Executor, IdempotencyEngineBuilder> configure,
            Runnable afterHolderRenewal) {
        this(fixture, configure, afterHolderRenewal, 0, 0);
    }

    private HotKeyLoad(StoreFixture fixture,
            BiFunction<IdempotencyEngineBuilder, Executor, IdempotencyEngineBuilder> configure,
            Runnable afterHolderRenewal, int nonBlockingWidth, int declaredWidth) {
        this.nonBlockingWidth = nonBlockingWidth;
        this.declaredWidth = declaredWidth;
        this.fixture = fixture;
        this.configure = configure;
        this.afterHolderRenewal = afterHolderRenewal;
        this.lease = fixture.lease();
        this.step = lease.dividedBy(STEPS_PER_LEASE);
        this.time = new SteppedTime(fixture, REAL_BOUND);
        this.timer = new ManualScheduler(time.ticker());
        Set<IdempotencyKey> hot = new LinkedHashSet<>();
        for (int k = 0; k < KEYS; k++) {
            Hot h = new Hot(k);
            keys.add(h);
            hot.add(h.key);
        }
        this.probe = new LoadProbe(hot, time, REAL_BOUND);
    }

    /**
     * The run over the store's non-blocking form (the fixture's store must offer one), through
     * clients of {@value #CLIENT_CONNECTIONS} connections that slow down as they fill.
     */
    static HotKeyLoad overNonBlockingForm(StoreFixture fixture) {
        return overNonBlockingForm(fixture, CLIENT_CONNECTIONS);
    }

    /**
     * As {@link #overNonBlockingForm(StoreFixture)}, with clients that declare {@code declared} calls
     * in flight over their {@value #CLIENT_CONNECTIONS} connections (more lets the engine's claims
     * take every connection: the kit's own test of the case).
     */
    static HotKeyLoad overNonBlockingForm(StoreFixture fixture, int declared) {
        return new HotKeyLoad(fixture, (b, executor) -> executor == null ? b : b.asyncExecutor(executor), () -> { },
                CLIENT_CONNECTIONS, declared);
    }

    /** The run with the engines as they come: {@code configure} sets the given executor, if any. */
    static HotKeyLoad asConfigured(StoreFixture fixture) {
        return new HotKeyLoad(fixture, (b, executor) -> executor == null ? b : b.asyncExecutor(executor));
    }

    void run() throws Exception {
        try {
            startEngines();
            startHolders();
            startDuplicates();
            List<Map<IdempotencyKey, Integer>> claimsPerStep = new ArrayList<>();
            claimsPerStep.add(probe.takeClaims());
            // While the work is pending, the duplicates' claims are held: a store that answers none of
            // them for two and a half leases. Renewals must keep every live worker's lease meanwhile.
            probe.closeGate();
            try {
                for (int s = 1; s <= PENDING_STEPS; s++) {
                    Duration filling = s == 1 ? fillThePool() : Duration.ZERO;
                    time.step(step.minus(filling));
                    timer.runDue();
                    awaitNeededRenewals(s);
                    claimsPerStep.add(probe.takeClaims());
                }
            } finally {
                probe.openGate();
            }
            endTheWork();
            settle(claimsPerStep);
            check(claimsPerStep);
        } finally {
            probe.openGate();
            for (Hot h : keys) {
                h.held.complete(h.value);
                h.released = true;
            }
            time.abort();
            for (Thread t : new ArrayList<>(threads)) {
                t.join(REAL_BOUND.toMillis());
            }
            engines.forEach(IdempotencyEngine::close);
            pools.forEach(ExecutorService::shutdownNow);
            probe.close();
        }
    }

    private void startEngines() {
        ExecutorService small = Executors.newFixedThreadPool(SMALL_POOL, daemons("tck-load-pool-"));
        pools.add(small);
        Executor perTask = task -> daemons("tck-load-task-").newThread(task).start();
        engine(fixture.store(), small, "a bounded pool of " + SMALL_POOL);
        engine(fixture.otherStore(), null, "the engine's default executor");
        engine(fixture.store(), perTask, "a thread per task");
    }

    private void engine(dev.idem.api.store.IdempotencyStore store, Executor executor, String shape) {
        AtomicInteger heldHere = new AtomicInteger();
        held.add(heldHere);
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(probe.wrap(store, heldHere,
                store.nonBlocking().isPresent() ? nonBlockingWidth : 0, declaredWidth))
                .ticker(time.ticker())
                .scheduler(timer).sleeper(time.sleeper()).lease(lease).ttl(lease.multipliedBy(20))
                .inProgress(InProgressPolicy.waitUpTo(lease.multipliedBy(6)));
        engines.add(configure.apply(b, executor).build());
        shapes.add(shape);
    }

    private static java.util.concurrent.ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private Object request(Hot h) {
        return Map.of("order", h.key.key(), "amount", 1000);
    }

    private void startHolders() throws InterruptedException {
        for (Hot h : keys) {
            IdempotencyEngine engine = engines.get(h.holder);
            if (h.blockingHolder) {
                blocking(h, engine, "the blocking holder", true);
            } else {
                h.callers++;
                engine.executeAsync(h.key, request(h), String.class, h.asyncWork())
                        .whenComplete((r, e) -> h.answered("the async holder", r, e, true));
            }
            assertThat(h.started.await(REAL_BOUND.toSeconds(), TimeUnit.SECONDS))
                    .as("the work of %s started", h.key.key()).isTrue();
        }
    }

    private void blocking(Hot h, IdempotencyEngine engine, String caller, boolean first) {
        h.callers++;
        Thread t = new Thread(() -> {
            try {
                h.answered(caller, engine.execute(h.key, request(h), String.class, h.blockingWork()), null, first);
            } catch (RuntimeException e) {
                h.answered(caller, null, e, first);
            }
        }, "tck-load-" + h.key.key());
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private void startDuplicates() {
        for (Hot h : keys) {
            for (int e = 0; e < engines.size(); e++) {
                IdempotencyEngine engine = engines.get(e);
                String on = " on " + shapes.get(e);
                for (int i = 0; i < ASYNC_WAITERS; i++) {
                    h.callers++;
                    engine.executeAsync(h.key, request(h), String.class, h.asyncWork())
                            .whenComplete((r, x) -> h.answered("an async duplicate" + on, r, x, false));
                }
                // None on the small pool's engine: its pool's threads must be the ones its claims hold.
                for (int i = 0; e > 0 && i < BLOCKING_WAITERS; i++) {
                    blocking(h, engine, "a blocking duplicate" + on, false);
                }
            }
        }
    }

    /**
     * Lets up to half a step pass, a tenth of a second at a time, until the duplicates' polls have
     * taken every thread of the small pool with a held claim (a poll the engine rescheduled late
     * falls due at a later tenth), so that from the first renewal on, whatever shares that pool
     * waits behind them. Not an assertion: an engine may send fewer claims.
     *
     * @return how much time passed
     */
    private Duration fillThePool() throws InterruptedException {
        Duration tenth = Duration.ofMillis(100);
        Duration passed = Duration.ZERO;
        int pool = Math.min(SMALL_POOL, KEYS);
        while (held.get(0).get() < pool && passed.plus(tenth).compareTo(step.dividedBy(2)) <= 0) {
            time.step(tenth);
            passed = passed.plus(tenth);
            timer.runDue();
            probe.awaitHeld(held.get(0), pool, FILL_WAIT);
        }
        return passed;
    }

    /**
     * With the claims of the hot keys held, waits for every renewal a live worker needs by now: a
     * key whose lease ends within a third of a lease (and half a step). The engine renews a third
     * of the lease after the last renewal, and blocking holders do the same, so a lease that runs
     * this low means a renewal is late by a step or more (waiting behind something).
     */
    private void awaitNeededRenewals(int s) throws InterruptedException {
        assertThat(probe.takenOver()).as("keys taken over from their live workers by step %d (%s into the run):"
                + " their work runs twice", s, time.elapsed()).isEmpty();
        Instant now = probe.storeNow();
        Instant dueBefore = now.plus(lease.dividedBy(3)).plus(step.dividedBy(2));
        for (Hot h : keys) {
            Instant lease = probe.leaseOf(h.key);
            assertThat(lease).as("the lease of %s", h.key.key()).isNotNull();
            Instant stored = fixture.store().find(h.key).map(r -> r.leaseExpiresAt()).orElse(null);
            assertThat(stored).as("at step %d, the lease of %s as the store holds it, against the %s it last granted:"
                    + " the store answers lease extensions it does not make, so a duplicate may take a live worker's"
                    + " key", s, h.key.key(), lease).isNotNull().isAfterOrEqualTo(lease.minus(STORE_ROUNDING));
            if (lease.isAfter(dueBefore)) {
                continue;
            }
            boolean renewed = probe.awaitLeasePast(h.key, dueBefore, timer::runDue);
            assertThat(probe.takenOver()).as("keys taken over from their live workers by step %d (%s into the run):"
                    + " their work runs twice", s, time.elapsed()).isEmpty();
            assertThat(renewed)
                    .as("at step %d (%s into the run), the lease of %s (its %s holder on %s; granted until %s,"
                            + " store time now %s%s) was not renewed while waiting duplicates' claims were held:"
                            + " renewals queue behind waiters", s, time.elapsed(), h.key.key(),
                            h.blockingHolder ? "blocking" : "async", shapes.get(h.holder), lease, now,
                            h.blockingHolder ? "; its own next renewal due at "
                                    + time.elapsedAt(h.renewalDue) + " into the run" : "")
                    .isTrue();
        }
    }

    private void endTheWork() throws InterruptedException {
        for (Hot h : keys) {
            h.released = true;
            h.held.complete(h.value);
        }
        time.poke();
        assertThat(probe.awaitCompleted()).as("every key's outcome stored").isTrue();
    }

    /** Steps time until every waiting duplicate has polled the stored outcome. */
    private void settle(List<Map<IdempotencyKey, Integer>> claimsPerStep) throws InterruptedException {
        for (int s = 0; s < 60 && !allAnswered(); s++) {
            time.step(Duration.ofSeconds(1));
            timer.runDue();
            awaitAnswers(Duration.ofSeconds(1));
            claimsPerStep.add(probe.takeClaims());
        }
        for (Hot h : keys) {
            assertThat(h.answers).as("callers of %s that answered", h.key.key()).hasSize(h.callers);
        }
    }

    private boolean allAnswered() {
        return keys.stream().allMatch(h -> h.answers.size() == h.callers);
    }

    /** Waits (bounded) for every caller's answer, woken by each one. */
    private synchronized void awaitAnswers(Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        for (long left = bound.toNanos(); !allAnswered() && left > 0; left = deadline - System.nanoTime()) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    private void check(List<Map<IdempotencyKey, Integer>> claimsPerStep) {
        int bound = 2 * engines.size();
        for (Hot h : keys) {
            assertThat(h.executions).as("executions of %s", h.key.key()).hasValue(1);
            assertThat(h.answers).as("what the %d callers of %s got", h.callers, h.key.key())
                    .allMatch(h.value::equals);
            for (int s = 0; s < claimsPerStep.size(); s++) {
                assertThat(claimsPerStep.get(s).getOrDefault(h.key, 0))
                        .as("claims of %s in step %d, by %d waiting duplicates on %d engines: their polls must be"
                                + " shared per key", h.key.key(), s, h.callers - 1, engines.size())
                        .isLessThanOrEqualTo(bound);
            }
        }
    }
}
