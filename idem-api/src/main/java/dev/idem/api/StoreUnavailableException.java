package dev.idem.api;

import org.jspecify.annotations.Nullable;

/**
 * The store could not be reached or answered in a way that cannot be trusted (HTTP 503).
 * When raised before the work started, the work did not run. {@link #retryable()} tells
 * whether repeating the call later may succeed (a timeout or throttling) or not (an
 * unparsable reply, a missing table).
 */
public class StoreUnavailableException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** Whether the same call may succeed later. */
    private final boolean retryable;

    /**
     * Creates a retryable store failure.
     *
     * @param message the message
     * @param cause the cause
     */
    public StoreUnavailableException(String message, @Nullable Throwable cause) {
        this(message, cause, true);
    }

    /**
     * Creates a store failure, stating whether a retry may succeed.
     *
     * @param message the message
     * @param cause the cause
     * @param retryable whether the same call may succeed later
     */
    public StoreUnavailableException(String message, @Nullable Throwable cause, boolean retryable) {
        super(message, cause);
        this.retryable = retryable;
    }

    /**
     * Whether the same call may succeed later.
     *
     * @return whether the same call may succeed later
     */
    public boolean retryable() {
        return retryable;
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
