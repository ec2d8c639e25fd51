package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's own pool at its ends: a shutdown lets a busy thread run every task handed in before
 * it (an answer of a store call queued there must not be dropped) and then end; a thread idle for
 * its keep-alive really ends (not only its count), so an engine that stopped making asynchronous
 * calls holds no thread; and a task that throws reaches its thread's uncaught-exception handler
 * instead of vanishing, while the thread goes on to the next task. Every wait is bounded.
 */
@Timeout(60)
class EngineThreadsShutdownTest {
    private static final long WAIT_SECONDS = 10;

    @Test
    void aShutdownLetsABusyThreadRunTheTasksQueuedBeforeItThenEnd() throws Exception {
        EngineThreads pool = new EngineThreads("test-", 1, 1, TimeUnit.HOURS);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> worker = new AtomicReference<>();
        pool.execute(() -> {
            worker.set(Thread.currentThread());
            started.countDown();
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(ran::incrementAndGet)).isInstanceOf(RejectedExecutionException.class);

        release.countDown();
        worker.get().join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(worker.get().isAlive()).as("the thread ends once the queue is empty").isFalse();
        assertThat(ran).as("every task handed in before the shutdown ran").hasValue(3);
        assertThat(pool.threads()).isZero();
    }

    @Test
    void aThreadIdleForItsKeepAliveEnds() throws Exception {
        EngineThreads pool = new EngineThreads("test-", 2, 1, TimeUnit.MILLISECONDS);
        try {
            CompletableFuture<Thread> ran = new CompletableFuture<>();
            pool.execute(() -> ran.complete(Thread.currentThread()));
            Thread worker = ran.get(WAIT_SECONDS, TimeUnit.SECONDS);
            worker.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(worker.isAlive()).as("ended after its keep-alive").isFalse();
            assertThat(pool.threads()).isZero();
            CompletableFuture<Thread> again = new CompletableFuture<>();
            pool.execute(() -> again.complete(Thread.currentThread()));
            assertThat(again.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("a new thread for the next task")
                    .isNotSameAs(worker);
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aTaskThatThrowsReachesTheUncaughtExceptionHandlerAndTheThreadGoesOn() throws Exception {
        IllegalStateException boom = new IllegalStateException("a task's own failure");
        CompletableFuture<Thread> reported = new CompletableFuture<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            if (e == boom) {
                reported.complete(t);
            } else if (previous != null) {
                previous.uncaughtException(t, e);
            } else {
                System.err.print("Exception in thread \"" + t.getName() + "\" ");
                e.printStackTrace();
            }
        });
        EngineThreads pool = new EngineThreads("test-", 1, 1, TimeUnit.HOURS);
        try {
            pool.execute(() -> {
                throw boom;
            });
            CompletableFuture<Thread> next = new CompletableFuture<>();
            pool.execute(() -> next.complete(Thread.currentThread()));
            Thread reporter = reported.get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(reporter.getName()).startsWith("test-");
            assertThat(next.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the same thread took the next task")
                    .isSameAs(reporter);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
            pool.shutdown();
        }
    }
}
