package dev.idem.api;

/**
 * The store could not be reached or answered in a way that cannot be trusted (HTTP 503).
 * When raised before the work started, the work did not run. {@link #retryable()} tells
 * whether repeating the call later may succeed (a timeout or throttling) or not (an
 * unparsable reply, a missing table).
 */
public class StoreUnavailableException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    /** Creates a retryable store failure. */
    public StoreUnavailableException(String message, Throwable cause) {
        this(message, cause, true);
    }

    /** Creates a store failure, stating whether a retry may succeed. */
    public StoreUnavailableException(String message, Throwable cause, boolean retryable) {
        super(message, cause);
        this.retryable = retryable;
    }

    /** Whether the same call may succeed later. */
    public boolean retryable() {
        return retryable;
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
