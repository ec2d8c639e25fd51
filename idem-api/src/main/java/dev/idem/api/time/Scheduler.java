package dev.idem.api.time;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task once after a delay, without parking the caller's thread: what asynchronous calls
 * use where a blocking call would {@link Sleeper#sleep}. Injected, so a test runs the tasks when
 * its simulated time reaches them instead of waiting.
 *
 * <p>Tasks must be short: a scheduler may run them on a single timer thread, so a task hands
 * real work (a store call) to an executor. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Scheduler {

    /**
     * Runs {@code task} once, {@code delay} (non-negative) from now, unless cancelled first.
     *
     * @param delay how long from now
     * @param task what to run; short, it must not block
     * @return a handle that cancels the task if it has not started
     */
    Cancellable schedule(Duration delay, Runnable task);

    /** A task scheduled to run later. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task if it has not started yet; does nothing once it has started or run. Idempotent. */
        void cancel();
    }

    /**
     * A scheduler over {@code executor} (its threads run the tasks). The executor stays the caller's.
     *
     * @param executor the executor
     * @return the scheduler
     */
    static Scheduler of(ScheduledExecutorService executor) {
        Objects.requireNonNull(executor, "executor");
        return (delay, task) -> {
            ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        };
    }
}
