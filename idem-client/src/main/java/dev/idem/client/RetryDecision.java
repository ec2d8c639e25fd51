package dev.idem.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A classifier's verdict on one attempt: retry or not, why (for listeners and logs), and optionally
 * the earliest time the server asked to be retried, e.g. from a {@code Retry-After} header or a gRPC
 * pushback. Immutable.
 */
public final class RetryDecision {

    private static final RetryDecision DO_NOT_RETRY = new RetryDecision(false, "not retryable", null);

    private final boolean retry;
    private final String reason;
    private final Duration retryAfter;

    private RetryDecision(boolean retry, String reason, Duration retryAfter) {
        this.retry = retry;
        this.reason = reason;
        this.retryAfter = retryAfter;
    }

    /**
     * Retry, with the policy's backoff.
     *
     * @param reason the classifier's reason, e.g. "HTTP 503"
     * @return a decision to retry after the policy's backoff
     */
    public static RetryDecision retry(String reason) {
        return new RetryDecision(true, Objects.requireNonNull(reason, "reason"), null);
    }

    /**
     * Retry no sooner than {@code retryAfter} (non-negative); the policy's deadline still applies, and
     * the hint is ignored when the policy does not honor retry-after.
     *
     * @param reason the classifier's reason, e.g. "HTTP 503"
     * @param retryAfter the least delay before the retry
     * @return a decision to retry no sooner than {@code retryAfter}
     */
    public static RetryDecision retryAfter(String reason, Duration retryAfter) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative but was " + retryAfter);
        }
        return new RetryDecision(true, reason, retryAfter);
    }

    /**
     * Do not retry: the outcome is final.
     *
     * @return a decision not to retry
     */
    public static RetryDecision doNotRetry() {
        return DO_NOT_RETRY;
    }

    /**
     * Do not retry, with a reason for diagnostics.
     *
     * @param reason the classifier's reason, e.g. "HTTP 503"
     * @return a decision not to retry, with the reason
     */
    public static RetryDecision doNotRetry(String reason) {
        return new RetryDecision(false, Objects.requireNonNull(reason, "reason"), null);
    }

    /**
     * Returns true if the attempt may be retried.
     *
     * @return true if the attempt may be retried
     */
    public boolean shouldRetry() {
        return retry;
    }

    /**
     * Returns a short human-readable reason.
     *
     * @return a short human-readable reason
     */
    public String reason() {
        return reason;
    }

    /**
     * Returns the server's requested minimum delay, if it gave one.
     *
     * @return the server's requested minimum delay, if it gave one
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** Returns a copy carrying {@code hint} as retry-after, unless this decision already has one. */
    RetryDecision withRetryAfterIfAbsent(Duration hint) {
        if (!retry || retryAfter != null || hint == null) {
            return this;
        }
        return new RetryDecision(true, reason, hint);
    }

    @Override
    public String toString() {
        return (retry ? "retry(" : "doNotRetry(")
                + reason
                + (retryAfter == null ? "" : ", retryAfter=" + retryAfter)
                + ")";
    }
}
