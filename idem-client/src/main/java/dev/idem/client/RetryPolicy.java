package dev.idem.client;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.client.internal.BackoffMath;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * How often and how fast one logical operation is repeated: attempts, jittered exponential backoff,
 * an overall deadline, and whether server {@code Retry-After} hints are honored. Immutable and
 * thread-safe (given thread-safe injected collaborators); build with {@link #builder()}.
 *
 * <p>Before the {@code k}-th retry ({@code k} counted from 0) the backoff is drawn from {@code [0,
 * min(maxDelay, baseDelay * 2^k)]} with {@link Jitter#FULL}. A server hint raises the delay to at
 * least the hint. A retry whose delay would reach past the deadline is not made: the last outcome is
 * returned at once instead of after a pointless wait.
 */
public final class RetryPolicy {

    static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE);

    private final int maxAttempts;
    private final Duration baseDelay;
    private final Duration maxDelay;
    private final Duration deadline;
    private final Jitter jitter;
    private final boolean honorRetryAfter;
    private final RandomGenerator random;
    private final Clock clock;
    private final Ticker ticker;
    private final Sleeper sleeper;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.baseDelay = b.baseDelay;
        this.maxDelay = b.maxDelay;
        this.deadline = b.deadline;
        this.jitter = b.jitter;
        this.honorRetryAfter = b.honorRetryAfter;
        this.random = b.random;
        this.clock = b.clock;
        this.ticker = b.ticker;
        this.sleeper = b.sleeper;
    }

    /**
     * Returns a builder with the defaults: 3 attempts, base 100 ms, cap 5 s, deadline 30 s, full
     * jitter, Retry-After honored, thread-local randomness, system clock, ticker and sleeper.
     *
     * @return a builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the default policy.
     *
     * @return the default policy
     */
    public static RetryPolicy defaults() {
        return builder().build();
    }

    /**
     * Returns a builder initialized from this policy.
     *
     * @return a builder initialized from this policy
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Draws the backoff before retry number {@code retryIndex} (0 for the first retry), ignoring any
     * server hint. {@code previous} is the backoff drawn before the previous retry, or null for the
     * first; only {@link Jitter#DECORRELATED} uses it.
     *
     * @param retryIndex 0 for the first retry, 1 for the second, and so on
     * @param previous the backoff drawn before the previous retry, or null for the first
     * @return the backoff, never negative
     */
    public Duration backoff(int retryIndex, Duration previous) {
        if (retryIndex < 0) {
            throw new IllegalArgumentException("retryIndex must not be negative but was " + retryIndex);
        }
        long base = baseDelay.toNanos();
        long cap = maxDelay.toNanos();
        long nanos =
                switch (jitter) {
                    case FULL -> BackoffMath.full(base, cap, retryIndex, random);
                    case EQUAL -> BackoffMath.equal(base, cap, retryIndex, random);
                    case DECORRELATED -> BackoffMath.decorrelated(
                            base, cap, previous == null ? 0 : previous.toNanos(), random);
                };
        return Duration.ofNanos(nanos);
    }

    /**
     * Total attempts including the first; 1 disables retries.
     *
     * @return total attempts including the first
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * The backoff scale.
     *
     * @return the backoff scale
     */
    public Duration baseDelay() {
        return baseDelay;
    }

    /**
     * The cap on a backoff drawn by this policy (server hints may exceed it, the deadline may not).
     *
     * @return the cap on a backoff drawn by this policy (server hints may exceed it, the deadline may not)
     */
    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * The total time budget of one logical operation, all attempts and waits included.
     *
     * @return the total time budget of one logical operation, all attempts and waits included
     */
    public Duration deadline() {
        return deadline;
    }

    /**
     * The jitter strategy.
     *
     * @return the jitter strategy
     */
    public Jitter jitter() {
        return jitter;
    }

    /**
     * Whether server retry-after hints raise the delay.
     *
     * @return whether server retry-after hints raise the delay
     */
    public boolean honorRetryAfter() {
        return honorRetryAfter;
    }

    /**
     * The randomness behind jitter.
     *
     * @return the randomness behind jitter
     */
    public RandomGenerator random() {
        return random;
    }

    /**
     * The wall clock, used to turn an HTTP-date {@code Retry-After} into a delay.
     *
     * @return the wall clock, used to turn an HTTP-date {@code Retry-After} into a delay
     */
    public Clock clock() {
        return clock;
    }

    /**
     * The monotonic time source for the deadline.
     *
     * @return the monotonic time source for the deadline
     */
    public Ticker ticker() {
        return ticker;
    }

    /**
     * What waits between attempts.
     *
     * @return what waits between attempts
     */
    public Sleeper sleeper() {
        return sleeper;
    }

    @Override
    public String toString() {
        return "RetryPolicy{maxAttempts=" + maxAttempts
                + ", baseDelay=" + baseDelay
                + ", maxDelay=" + maxDelay
                + ", deadline=" + deadline
                + ", jitter=" + jitter
                + ", honorRetryAfter=" + honorRetryAfter
                + "}";
    }

    /**
     * Validating builder: each setter rejects a bad value at once, naming it; {@link #build()} rejects
     * contradictory combinations. Not thread-safe.
     */
    public static final class Builder {
        private int maxAttempts = 3;
        private Duration baseDelay = Duration.ofMillis(100);
        private Duration maxDelay = Duration.ofSeconds(5);
        private Duration deadline = Duration.ofSeconds(30);
        private Jitter jitter = Jitter.FULL;
        private boolean honorRetryAfter = true;
        // A lambda rather than ThreadLocalRandom.current(): the policy is shared across threads.
        private RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.system();
        private Sleeper sleeper = Sleeper.system();

        private Builder() {}

        private Builder(RetryPolicy p) {
            maxAttempts = p.maxAttempts;
            baseDelay = p.baseDelay;
            maxDelay = p.maxDelay;
            deadline = p.deadline;
            jitter = p.jitter;
            honorRetryAfter = p.honorRetryAfter;
            random = p.random;
            clock = p.clock;
            ticker = p.ticker;
            sleeper = p.sleeper;
        }

        /**
         * Total attempts including the first, at least 1.
         *
         * @param maxAttempts the max attempts
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1 but was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * The backoff scale, positive.
         *
         * @param baseDelay the base delay
         * @return this builder
         */
        public Builder baseDelay(Duration baseDelay) {
            this.baseDelay = positive("baseDelay", baseDelay);
            return this;
        }

        /**
         * The largest backoff the policy draws, positive and not below {@code baseDelay}.
         *
         * @param maxDelay the max delay
         * @return this builder
         */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = positive("maxDelay", maxDelay);
            return this;
        }

        /**
         * Total time budget for all attempts and waits, positive and not below {@code baseDelay}.
         *
         * @param deadline the deadline
         * @return this builder
         */
        public Builder deadline(Duration deadline) {
            this.deadline = positive("deadline", deadline);
            return this;
        }

        /**
         * The jitter strategy.
         *
         * @param jitter the jitter
         * @return this builder
         */
        public Builder jitter(Jitter jitter) {
            this.jitter = Objects.requireNonNull(jitter, "jitter must not be null");
            return this;
        }

        /**
         * Whether a server's retry-after hint raises the delay (it never shortens it).
         *
         * @param honorRetryAfter whether server Retry-After hints raise the delay
         * @return this builder
         */
        public Builder honorRetryAfter(boolean honorRetryAfter) {
            this.honorRetryAfter = honorRetryAfter;
            return this;
        }

        /**
         * Randomness for jitter; must be thread-safe if the policy is shared.
         *
         * @param random the jitter source
         * @return this builder
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random must not be null");
            return this;
        }

        /**
         * Wall clock for HTTP-date {@code Retry-After} values.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /**
         * Monotonic time source for the deadline.
         *
         * @param ticker the ticker
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
            return this;
        }

        /**
         * What waits between attempts.
         *
         * @param sleeper the sleeper
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
            return this;
        }

        /**
         * Builds the policy.
         *
         * @return the retry policy
         * @throws IllegalStateException if {@code baseDelay > maxDelay} or {@code deadline < baseDelay}
         */
        public RetryPolicy build() {
            if (baseDelay.compareTo(maxDelay) > 0) {
                throw new IllegalStateException(
                        "baseDelay (" + baseDelay + ") must not exceed maxDelay (" + maxDelay + ")");
            }
            if (deadline.compareTo(baseDelay) < 0) {
                throw new IllegalStateException(
                        "deadline (" + deadline + ") must not be shorter than baseDelay (" + baseDelay + ")");
            }
            return new RetryPolicy(this);
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, () -> name + " must not be null");
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive but was " + value);
            }
            if (value.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException(
                        name + " must be at most " + MAX_DURATION + " but was " + value);
            }
            return value;
        }
    }
}
