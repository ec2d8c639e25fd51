package dev.idem.api;

import org.jspecify.annotations.Nullable;

/**
 * Root of every error idem raises on purpose. Each subclass names one case and the HTTP
 * status the IETF Idempotency-Key draft (or plain HTTP semantics) gives it, so a server
 * can map any idem failure without a table of its own.
 */
public class IdempotencyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message.
     *
     * @param message the message
     */
    public IdempotencyException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and a cause.
     *
     * @param message the message
     * @param cause the cause
     */
    public IdempotencyException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /**
     * The HTTP status this failure maps to; 500 unless a subclass says otherwise.
     *
     * @return the HTTP status this failure maps to
     */
    public int httpStatus() {
        return 500;
    }
}
