package dev.idem.api;

import org.jspecify.annotations.Nullable;

/**
 * The request could not be fingerprinted (HTTP 400, or 413 when it is too large):
 * malformed JSON, a duplicate object key, a lone surrogate, a non-finite number, or a
 * payload over the configured limit. Raised before anything is stored.
 */
public class InvalidRequestException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** Whether the request was rejected for its size. */
    private final boolean tooLarge;

    /**
     * Creates the exception for malformed input.
     *
     * @param message the message
     */
    public InvalidRequestException(String message) {
        this(message, false, null);
    }

    /**
     * Creates the exception; {@code tooLarge} marks a size-limit violation.
     *
     * @param message the message
     * @param tooLarge whether the request was rejected for its size rather than its form
     * @param cause the cause
     */
    public InvalidRequestException(String message, boolean tooLarge, @Nullable Throwable cause) {
        super(message, cause);
        this.tooLarge = tooLarge;
    }

    /**
     * Whether the request was rejected for its size rather than its form.
     *
     * @return whether the request was rejected for its size rather than its form
     */
    public boolean tooLarge() {
        return tooLarge;
    }

    @Override
    public int httpStatus() {
        return tooLarge ? 413 : 400;
    }
}
