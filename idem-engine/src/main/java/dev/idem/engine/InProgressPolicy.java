package dev.idem.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * What a duplicate does when it finds the key held by a live lease: fail at once with
 * {@link dev.idem.api.RequestInProgressException} (HTTP 409, the default), or wait a bounded
 * time, polling the store with backoff, and then replay, take over a lapsed lease, or fail.
 */
public final class InProgressPolicy {
    private static final InProgressPolicy FAIL_FAST = new InProgressPolicy(Duration.ZERO);

    private final Duration maxWait;

    private InProgressPolicy(Duration maxWait) {
        this.maxWait = maxWait;
    }

    /**
     * Fail at once with a retry-after hint.
     *
     * @return the policy that fails at once with a retry-after hint
     */
    public static InProgressPolicy failFast() {
        return FAIL_FAST;
    }

    /**
     * Wait up to {@code maxWait} for the holder to finish. The engine also rejects a wait
     * longer than the call's TTL, when the policy is used.
     *
     * @param maxWait the longest wait, at least 1 ms and at most {@link IdempotencyEngine#MAX_DURATION}
     * @return the policy
     * @throws IllegalArgumentException if {@code maxWait} is out of that range
     */
    public static InProgressPolicy waitUpTo(Duration maxWait) {
        return new InProgressPolicy(IdempotencyEngine.positive("maxWait", maxWait));
    }

    /**
     * The longest wait; zero for fail-fast.
     *
     * @return the longest wait
     */
    public Duration maxWait() {
        return maxWait;
    }

    /**
     * Whether this policy waits at all.
     *
     * @return whether this policy waits at all
     */
    public boolean waits() {
        return !maxWait.isZero();
    }

    @Override
    public String toString() {
        return waits() ? "waitUpTo(" + maxWait + ")" : "failFast";
    }
}
