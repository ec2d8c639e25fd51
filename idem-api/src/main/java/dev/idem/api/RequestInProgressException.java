package dev.idem.api;

import java.time.Duration;

/**
 * Another execution of the same key holds a live lease: HTTP 409. The client should
 * retry with the same key after {@link #retryAfter()}; it will then see the stored
 * outcome, or take over if the holder crashed.
 */
public class RequestInProgressException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key that is in progress. */
    private final IdempotencyKey key;
    /** How long to wait before retrying. */
    private final Duration retryAfter;

    /**
     * Creates the exception with a hint of when a retry is worth making.
     *
     * @param key the key
     * @param retryAfter how long to wait before retrying, not negative
     */
    public RequestInProgressException(IdempotencyKey key, Duration retryAfter) {
        super("a request with idempotency key " + key.key() + " is still in progress for "
                + key.operation() + "; retry after " + retryAfter.toMillis() + " ms");
        this.key = key;
        this.retryAfter = retryAfter;
    }

    /**
     * The key that is in progress.
     *
     * @return the key that is in progress
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * How long to wait before retrying; never negative.
     *
     * @return how long to wait before retrying
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
