package dev.idem.client;

import dev.idem.api.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cap on retries shared by every call that uses the same instance, so that retries cannot
 * multiply the load on a struggling server. Over a rolling window, retries may not exceed {@code
 * ratio * requests + minRetriesPerSecond * windowSeconds}, where requests are logical calls (first
 * attempts; retries do not earn retries). The floor lets a client with little traffic still retry.
 * When the budget is spent, the caller gets the last failure at once.
 *
 * <p>Thread-safe and lock-free: the window is a ring of ten slots of {@code window / 10} each, so
 * the effective window is between nine and ten tenths of {@code window}. Under a steady clock the
 * bound is exact even with many concurrent callers, because a retry is granted by a compare-and-set
 * on the current slot's count.
 */
public final class RetryBudget {

    private static final int SLOTS = 10;
    private static final long NEVER = Long.MIN_VALUE / 2;
    private static final RetryBudget UNLIMITED = new RetryBudget();

    private final double ratio;
    private final int minRetriesPerSecond;
    private final Duration window;
    private final Ticker ticker;
    private final long slotNanos;
    private final long origin;
    private final double floorAllowance;
    private final AtomicReferenceArray<Slot> slots;

    private RetryBudget() {
        ratio = Double.POSITIVE_INFINITY;
        minRetriesPerSecond = 0;
        window = Duration.ZERO;
        ticker = () -> 0;
        slotNanos = 1;
        origin = 0;
        floorAllowance = Double.POSITIVE_INFINITY;
        slots = null;
    }

    private RetryBudget(Builder b) {
        ratio = b.ratio;
        minRetriesPerSecond = b.minRetriesPerSecond;
        window = b.window;
        ticker = b.ticker;
        slotNanos = Math.max(1, window.toNanos() / SLOTS);
        origin = ticker.read();
        floorAllowance = minRetriesPerSecond * (window.toNanos() / 1e9);
        slots = new AtomicReferenceArray<>(SLOTS);
        for (int i = 0; i < SLOTS; i++) {
            slots.set(i, new Slot(NEVER));
        }
    }

    /**
     * Returns a budget that never refuses a retry (the policy alone limits retries).
     *
     * @return a budget that never refuses a retry (the policy alone limits retries)
     */
    public static RetryBudget unlimited() {
        return UNLIMITED;
    }

    /**
     * Returns a builder with the defaults: ratio 0.1 (10 % extra load), floor 10 retries per second,
     * window 10 s, system ticker.
     *
     * @return a builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Records a logical call (its first attempt), which earns {@code ratio} retries. */
    public void recordRequest() {
        if (slots != null) {
            current().requests.increment();
        }
    }

    /**
     * Takes one retry from the budget; returns false, taking nothing, if the budget is spent.
     *
     * @return true if a retry was granted (and taken), false if the budget is spent
     */
    public boolean tryAcquireRetry() {
        if (slots == null) {
            return true;
        }
        Slot current = current();
        while (true) {
            // Read our slot's count first: the CAS below then fails if anyone took a retry meanwhile.
            long mine = current.retries.get();
            long requests = 0;
            long retries = 0;
            for (int i = 0; i < SLOTS; i++) {
                Slot s = slots.get(i);
                if (s == current) {
                    requests += s.requests.sum();
                    retries += mine;
                } else if (s.index > current.index - SLOTS) {
                    requests += s.requests.sum();
                    retries += s.retries.get();
                }
            }
            if (retries + 1 > ratio * requests + floorAllowance) {
                return false;
            }
            if (current.retries.compareAndSet(mine, mine + 1)) {
                return true;
            }
        }
    }

    /**
     * Returns how many retries the budget would grant now; a snapshot for monitoring.
     *
     * @return how many retries the budget would grant now
     */
    public long availableRetries() {
        if (slots == null) {
            return Long.MAX_VALUE;
        }
        long index = slotIndex();
        long requests = 0;
        long retries = 0;
        for (int i = 0; i < SLOTS; i++) {
            Slot s = slots.get(i);
            if (s.index > index - SLOTS) {
                requests += s.requests.sum();
                retries += s.retries.get();
            }
        }
        return Math.max(0, (long) Math.floor(ratio * requests + floorAllowance) - retries);
    }

    /**
     * Retries earned per request.
     *
     * @return retries earned per request
     */
    public double ratio() {
        return ratio;
    }

    /**
     * Retries per second allowed regardless of traffic.
     *
     * @return retries per second allowed regardless of traffic
     */
    public int minRetriesPerSecond() {
        return minRetriesPerSecond;
    }

    /**
     * The rolling window; zero for {@link #unlimited()}.
     *
     * @return the rolling window
     */
    public Duration window() {
        return window;
    }

    @Override
    public String toString() {
        return slots == null
                ? "RetryBudget.unlimited()"
                : "RetryBudget{ratio=" + ratio + ", minRetriesPerSecond=" + minRetriesPerSecond
                        + ", window=" + window + "}";
    }

    private long slotIndex() {
        return Math.max(0, ticker.read() - origin) / slotNanos;
    }

    private Slot current() {
        long index = slotIndex();
        int i = (int) (index % SLOTS);
        while (true) {
            Slot s = slots.get(i);
            // A newer slot means another thread read the ticker later than we did: count there.
            if (s.index >= index) {
                return s;
            }
            Slot fresh = new Slot(index);
            if (slots.compareAndSet(i, s, fresh)) {
                return fresh;
            }
        }
    }

    private static final class Slot {
        final long index;
        final LongAdder requests = new LongAdder();
        final AtomicLong retries = new AtomicLong();

        Slot(long index) {
            this.index = index;
        }
    }

    /**
     * Validating builder: each setter rejects a bad value at once, naming it; {@link #build()} rejects a
     * budget that could never grant a retry. Not thread-safe.
     */
    public static final class Builder {
        private double ratio = 0.1;
        private int minRetriesPerSecond = 10;
        private Duration window = Duration.ofSeconds(10);
        private Ticker ticker = Ticker.system();

        private Builder() {}

        /**
         * Retries earned per logical call, in {@code [0, 1]}; 0.1 allows 10 % extra load.
         *
         * @param ratio the ratio
         * @return this builder
         */
        public Builder ratio(double ratio) {
            if (!(ratio >= 0.0 && ratio <= 1.0)) {
                throw new IllegalArgumentException("ratio must be in [0, 1] but was " + ratio);
            }
            this.ratio = ratio;
            return this;
        }

        /**
         * Retries per second allowed regardless of traffic, at least 0.
         *
         * @param minRetriesPerSecond the min retries per second
         * @return this builder
         */
        public Builder minRetriesPerSecond(int minRetriesPerSecond) {
            if (minRetriesPerSecond < 0) {
                throw new IllegalArgumentException(
                        "minRetriesPerSecond must not be negative but was " + minRetriesPerSecond);
            }
            this.minRetriesPerSecond = minRetriesPerSecond;
            return this;
        }

        /**
         * The rolling window, at least one second.
         *
         * @param window the window
         * @return this builder
         */
        public Builder window(Duration window) {
            Objects.requireNonNull(window, "window must not be null");
            if (window.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("window must be at least PT1S but was " + window);
            }
            if (window.compareTo(RetryPolicy.MAX_DURATION) > 0) {
                throw new IllegalArgumentException(
                        "window must be at most " + RetryPolicy.MAX_DURATION + " but was " + window);
            }
            this.window = window;
            return this;
        }

        /**
         * Time source for the window.
         *
         * @param ticker the ticker
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
            return this;
        }

        /**
         * Builds the budget.
         *
         * @return the retry budget
         * @throws IllegalStateException if both the ratio and the floor are zero
         */
        public RetryBudget build() {
            if (ratio == 0.0 && minRetriesPerSecond == 0) {
                throw new IllegalStateException(
                        "ratio (0.0) and minRetriesPerSecond (0) would never allow a retry;"
                                + " use RetryPolicy.builder().maxAttempts(1) to disable retries");
            }
            return new RetryBudget(this);
        }
    }
}
