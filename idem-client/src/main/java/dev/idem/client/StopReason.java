package dev.idem.client;

/** Why a retryable failure was not retried. */
public enum StopReason {
    /** The policy's maximum number of attempts was reached. */
    MAX_ATTEMPTS,
    /** The next attempt could not start before the policy's overall deadline. */
    DEADLINE,
    /** The shared {@link RetryBudget} had no retry left. */
    RETRY_BUDGET
}
