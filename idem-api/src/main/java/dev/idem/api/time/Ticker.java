package dev.idem.api.time;

/**
 * A source of monotonic nanoseconds, used to measure elapsed time (deadlines, budget windows).
 *
 * <p>Only differences between two readings are meaningful. Implementations must be thread-safe and
 * never go backwards. Inject a fake in tests; production code uses {@link #system()}.
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Returns the current reading in nanoseconds, with an arbitrary origin.
     *
     * @return the current reading in nanoseconds, with an arbitrary origin
     */
    long read();

    /**
     * Returns a ticker backed by {@link System#nanoTime()}.
     *
     * @return a ticker backed by {@link System#nanoTime()}
     */
    static Ticker system() {
        return System::nanoTime;
    }
}
