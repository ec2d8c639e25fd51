package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's own pool, which takes tasks in without a lock: every task handed in runs once, from
 * however many threads at once and however the pool's threads come and go (idle ones ending while
 * tasks arrive); never more threads than its bound; none once idle; nothing after shutdown.
 */
@Timeout(60)
class EngineThreadsTest {

    @RepeatedTest(5)
    void everyTaskRunsOnceWhileThreadsComeAndGo() throws Exception {
        // A keep-alive of a millisecond: threads end between bursts, and tasks arrive as they end.
        EngineThreads pool = new EngineThreads("test-", 3, 1, TimeUnit.MILLISECONDS);
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            int perCaller = 20_000;
            AtomicInteger ran = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            AtomicInteger running = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(4 * perCaller);
            CyclicBarrier start = new CyclicBarrier(4);
            for (int c = 0; c < 4; c++) {
                callers.execute(() -> {
                    try {
                        start.await(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    for (int i = 0; i < perCaller; i++) {
                        pool.execute(() -> {
                            most.accumulateAndGet(running.incrementAndGet(), Math::max);
                            ran.incrementAndGet();
                            running.decrementAndGet();
                            done.countDown();
                        });
                        if (i % 1000 == 0) {
                            Thread.onSpinWait();
                        }
                    }
                });
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).as("every task ran (%s of %s; %s)", ran.get(),
                    4 * perCaller, pool).isTrue();
            assertThat(ran).hasValue(4 * perCaller);
            assertThat(most.get()).isLessThanOrEqualTo(3);
        } finally {
            callers.shutdownNow();
            pool.shutdown();
        }
    }

    @Test
    void idleThreadsEndAndAShutDownPoolRefuses() throws Exception {
        EngineThreads pool = new EngineThreads("test-", 2, 20, TimeUnit.MILLISECONDS);
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.threads() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(pool.threads()).as("threads once idle past the keep-alive").isZero();
        CountDownLatch again = new CountDownLatch(1);
        pool.execute(again::countDown);
        assertThat(again.await(10, TimeUnit.SECONDS)).as("a task after the threads ended starts one").isTrue();
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void anIdleThreadStaysForTheNextTaskAndEndsPromptlyOnShutdown() throws Exception {
        // A keep-alive of an hour: only the shutdown can end the idle thread within the test.
        EngineThreads pool = new EngineThreads("test-", 1, 1, TimeUnit.HOURS);
        AtomicReference<Thread> first = new AtomicReference<>();
        AtomicReference<Thread> second = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(() -> {
            first.set(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        CountDownLatch failedTaskDone = new CountDownLatch(1);
        pool.execute(() -> {
            failedTaskDone.countDown();
            throw new IllegalStateException("a task's own failure");
        });
        CountDownLatch ranAgain = new CountDownLatch(1);
        pool.execute(() -> {
            second.set(Thread.currentThread());
            ranAgain.countDown();
        });
        assertThat(failedTaskDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAgain.await(10, TimeUnit.SECONDS)).as("a task that throws does not end the pool").isTrue();

        Thread worker = first.get();
        assertThat(second.get()).as("the idle thread took the next task").isSameAs(worker);
        assertThat(worker.isDaemon()).as("the pool never keeps a JVM alive").isTrue();
        assertThat(worker.getName()).startsWith("test-");
        assertThat(pool.threads()).isEqualTo(1);

        // Shut down only once the thread is parked idle, so that only the shutdown's wake-up can end it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (worker.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(worker.getState()).as("parked idle").isEqualTo(Thread.State.TIMED_WAITING);
        pool.shutdown();
        worker.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(worker.isAlive()).as("woken by the shutdown, not by its keep-alive").isFalse();
        assertThat(pool.threads()).isZero();
    }
}
