package dev.idem.client;

import java.time.Duration;

/**
 * Observes the retry loop, e.g. for metrics or logs. All methods default to doing nothing.
 *
 * <p>Called synchronously on the thread running the loop, so implementations must be quick,
 * thread-safe and must not block. An exception thrown by a listener is logged and otherwise ignored:
 * observing a call never changes its outcome.
 */
public interface RetryListener {

    /** A listener that ignores every event. */
    RetryListener NONE = new RetryListener() {};

    /**
     * An attempt is about to start.
     *
     * @param attempt the key and number of this attempt
     */
    default void onAttempt(Attempt attempt) {}

    /**
     * {@code failed} will be retried after {@code delay}.
     *
     * @param reason the classifier's reason, e.g. "HTTP 503"
     * @param failed the attempt that failed
     * @param delay the delay
     */
    default void onRetryScheduled(Attempt failed, Duration delay, String reason) {}

    /**
     * {@code failed} was retryable, but the shared {@link RetryBudget} had no retry left.
     *
     * @param failed the attempt that failed
     * @param reason the classifier's reason, e.g. "HTTP 503"
     */
    default void onBudgetExhausted(Attempt failed, String reason) {}

    /**
     * The loop stopped although the last outcome was retryable; that outcome is returned to the
     * caller. Follows {@link #onBudgetExhausted} when the budget was the cause.
     *
     * @param last the last attempt made
     * @param why why retrying stopped
     * @param reason the classifier's reason, e.g. "HTTP 503"
     */
    default void onGiveUp(Attempt last, StopReason why, String reason) {}
}
