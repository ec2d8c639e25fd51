package dev.idem.api.time;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Waits between attempts. Injected so tests can record delays instead of waiting them out.
 *
 * <p>{@link #sleep} blocks the calling thread; {@link #delay} is the non-blocking counterpart used by
 * asynchronous calls. The default {@code delay} simply runs {@code sleep} on the calling thread and
 * returns a completed future, which suits fakes; a sleeper that really waits should override it with
 * a timer, as {@link #system()} does. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Blocks for {@code duration} (non-negative).
     *
     * @param duration the duration
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;

    /**
     * Returns a future that completes after {@code duration}; never blocks a caller for real time unless
     * the sleeper is a fake whose {@code sleep} returns at once.
     *
     * @param duration the duration
     * @return a future that completes after {@code duration}
     */
    default CompletableFuture<Void> delay(Duration duration) {
        try {
            sleep(duration);
            return CompletableFuture.completedFuture(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Returns a sleeper that uses {@link TimeUnit#sleep} and, for async calls, a JDK delayed executor.
     *
     * @return a sleeper that uses {@link TimeUnit#sleep} and, for async calls, a JDK delayed executor
     */
    static Sleeper system() {
        return new Sleeper() {
            @Override
            public void sleep(Duration duration) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(duration.toNanos());
            }

            @Override
            public CompletableFuture<Void> delay(Duration duration) {
                return CompletableFuture.runAsync(
                        () -> {}, CompletableFuture.delayedExecutor(duration.toNanos(), TimeUnit.NANOSECONDS));
            }

            @Override
            public String toString() {
                return "Sleeper.system()";
            }
        };
    }
}
