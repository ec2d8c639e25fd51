package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The lane's contract on its own: never more than {@code width} calls under way, a held claim's
 * call before waiting claims, every call answered exactly once and every slot given back, also
 * when many threads enter and finish calls at once (a call queued while the last slot is given
 * back must not be stranded) and when the executor refuses.
 */
class StoreLaneTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(8);
    private final ExecutorService callers = Executors.newFixedThreadPool(4);

    private StoreLane lane;

    /** A laned port over a lane {@code width} wide (no store: the tests hand in the calls). */
    private LanedPort laned(int width, Supplier<Executor> claims, Supplier<Executor> held) {
        lane = new StoreLane(width);
        return new LanedPort(null, lane, claims, held, d -> { });
    }

    /** A non-blocking port over a lane {@code width} wide, answering on the pool. */
    private NonBlockingPort nonBlocking(int width) {
        lane = new StoreLane(width);
        return new NonBlockingPort(null, lane, new AsyncRuntime(pool, pool, null, Duration.ofMinutes(1), 100));
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        callers.shutdownNow();
    }

    @Test
    void neverMoreThanItsWidthOfBlockingCallsAtOnceAndEveryCallAnswered() throws Exception {
        LanedPort port = laned(3, () -> pool, () -> pool);
        AtomicInteger underWay = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch threeIn = new CountDownLatch(3);
        CountDownLatch answered = new CountDownLatch(50);
        for (int i = 0; i < 50; i++) {
            port.call(i % 2 == 0, () -> {
                most.accumulateAndGet(underWay.incrementAndGet(), Math::max);
                threeIn.countDown();
                await(release);
                underWay.decrementAndGet();
                return "ok";
            }, (value, failure) -> answered.countDown());
        }
        assertThat(threeIn.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lane.running()).isEqualTo(3);
        release.countDown();
        assertThat(answered.await(10, TimeUnit.SECONDS)).as("every call answered").isTrue();
        assertThat(most.get()).isEqualTo(3);
        assertThat(lane.running()).isZero();
    }

    @Test
    void aHeldClaimsCallGoesBeforeWaitingClaims() throws Exception {
        AsyncSlotsTest.QueuedExecutor executor = new AsyncSlotsTest.QueuedExecutor();
        LanedPort port = laned(1, () -> executor, () -> executor);
        List<String> order = new ArrayList<>();
        port.call(false, record(order, "first claim"), (v, e) -> { });
        port.call(false, record(order, "second claim"), (v, e) -> { });
        port.call(false, record(order, "third claim"), (v, e) -> { });
        port.call(true, record(order, "end of a held claim"), (v, e) -> { });
        executor.drain();
        assertThat(order).containsExactly("first claim", "end of a held claim", "second claim", "third claim");
        assertThat(lane.running()).isZero();
    }

    /**
     * Claims that never answer (a store that holds them, a crowd of waiting duplicates) take at most
     * the claims' share of the lane: a held key's call still finds a slot at once, and is answered.
     */
    @Test
    void claimsThatNeverAnswerLeaveTheSlotsKeptForHeldKeys() throws Exception {
        AsyncSlotsTest.QueuedExecutor claims = new AsyncSlotsTest.QueuedExecutor();
        AsyncSlotsTest.QueuedExecutor held = new AsyncSlotsTest.QueuedExecutor();
        LanedPort port = laned(4, () -> claims, () -> held);
        AtomicInteger claimsStarted = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            port.call(false, () -> claimsStarted.incrementAndGet(), (v, e) -> { });
        }
        List<String> renewals = new ArrayList<>();
        port.call(true, () -> "renewed", (v, e) -> renewals.add(v));
        assertThat(lane.running()).as("three claims and the held key's call").isEqualTo(4);
        held.drain();
        assertThat(renewals).containsExactly("renewed");
        assertThat(lane.running()).as("the claims keep their three slots; the kept one is free again").isEqualTo(3);
        port.call(true, () -> "again", (v, e) -> renewals.add(v));
        held.drain();
        assertThat(renewals).containsExactly("renewed", "again");
        assertThat(claimsStarted).as("no claim has run yet").hasValue(0);
        claims.drain();
        assertThat(claimsStarted).hasValue(10);
        assertThat(lane.running()).isZero();
    }

    /** Many threads entering and finishing at once, the width small: nothing stranded, never over the width. */
    @RepeatedTest(10)
    void callsEnteredFromManyThreadsWhileSlotsComeBackAreAllAnswered() throws Exception {
        int width = 1;
        int perCaller = 5000;
        LanedPort port = laned(width, () -> pool, () -> pool);
        AtomicInteger underWay = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Map<Integer, Integer> answers = new ConcurrentHashMap<>();
        CountDownLatch answered = new CountDownLatch(4 * perCaller);
        CyclicBarrier start = new CyclicBarrier(4);
        for (int c = 0; c < 4; c++) {
            int caller = c;
            callers.execute(() -> {
                Random random = new Random(caller);
                await(start);
                for (int i = 0; i < perCaller; i++) {
                    int id = caller * perCaller + i;
                    port.call(random.nextBoolean(), () -> {
                        most.accumulateAndGet(underWay.incrementAndGet(), Math::max);
                        underWay.decrementAndGet();
                        return id;
                    }, (value, failure) -> {
                        answers.merge(id, 1, Integer::sum);
                        answered.countDown();
                    });
                }
            });
        }
        assertThat(answered.await(30, TimeUnit.SECONDS))
                .as("all answered (%s of %s; %s slots still taken)", answers.size(), 4 * perCaller, lane.running())
                .isTrue();
        assertThat(answers).hasSize(4 * perCaller).allSatisfy((id, times) -> assertThat(times).isOne());
        assertThat(most.get()).isLessThanOrEqualTo(width);
        assertThat(lane.running()).isZero();
    }

    @Test
    void aNonBlockingLaneHoldsASlotUntilTheStoresStageCompletesAndAnswersOnTheExecutor() throws Exception {
        NonBlockingPort port = nonBlocking(2);
        List<CompletableFuture<String>> store = new ArrayList<>();
        List<CompletableFuture<String>> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            results.add(port.start(false, () -> {
                CompletableFuture<String> reply = new CompletableFuture<>();
                synchronized (store) {
                    store.add(reply);
                }
                return reply;
            }));
        }
        assertThat(store).hasSize(2);
        assertThat(lane.running()).isEqualTo(2);
        for (int i = 0; i < 5; i++) {
            CompletableFuture<String> reply;
            synchronized (store) {
                reply = store.get(i);
            }
            // The store's stage completes on this thread (its I/O thread); what follows must not run on it.
            Thread ioThread = Thread.currentThread();
            CompletableFuture<Thread> answeredOn = results.get(i).thenApply(v -> Thread.currentThread());
            String answer = "answer " + i;
            reply.complete(answer);
            // Waited for first: a thread waiting in get() on the answer itself may run its dependents.
            assertThat(answeredOn.get(10, TimeUnit.SECONDS)).isNotSameAs(ioThread);
            assertThat(results.get(i).getNow(null)).isEqualTo(answer);
        }
        assertThat(store).hasSize(5);
        assertThat(lane.running()).isZero();
    }

    @Test
    void aRefusingExecutorAnswersClaimsWithAStoreErrorRunsHeldClaimsElsewhereAndKeepsNoSlot() throws Exception {
        AsyncSlotsTest.QueuedExecutor executor = new AsyncSlotsTest.QueuedExecutor();
        AsyncSlotsTest.QueuedExecutor fallback = new AsyncSlotsTest.QueuedExecutor();
        LanedPort port = laned(1, () -> executor, () -> fallback);
        AtomicInteger ran = new AtomicInteger();
        List<Throwable> failures = new ArrayList<>();
        executor.refusing = true;
        port.call(false, () -> ran.incrementAndGet(), (v, e) -> failures.add(e));
        port.call(true, () -> ran.incrementAndGet(), (v, e) -> { });
        port.call(false, () -> ran.incrementAndGet(), (v, e) -> failures.add(e));
        assertThat(lane.running()).as("the held claim's call keeps its slot until it ran").isOne();
        fallback.drain();
        assertThat(ran.get()).as("only the held claim's call ran, on the fallback").isOne();
        assertThat(failures).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(StoreUnavailableException.class));
        assertThat(lane.running()).isZero();
    }

    private static Supplier<String> record(List<String> order, String name) {
        return () -> {
            order.add(name);
            return name;
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released in 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
