package dev.idem.api;

import org.jspecify.annotations.Nullable;

/**
 * The key's execution ended in a failure classified as final (a declined card, a validation
 * error): its code and message are stored, and every call with the key gets this type with
 * the same {@link #code()}, {@link #detail()} and HTTP status, the first one included. The
 * first caller's exception carries the work's original exception as its cause; retries get
 * the subtype {@link ReplayedFailureException}, without a cause (no exception is ever
 * serialized). Catch this type to handle both alike.
 */
public class FinalFailureException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key whose execution failed finally. */
    private final IdempotencyKey key;
    /** The failure code the classifier chose. */
    private final String code;
    /** The human-readable message; may be empty. */
    private final String detail;

    /**
     * Creates the exception for the first caller.
     *
     * @param key the key whose execution failed
     * @param code the failure code the classifier chose
     * @param detail the stored human-readable message; may be empty
     * @param cause the work's original exception
     */
    public FinalFailureException(IdempotencyKey key, String code, String detail, @Nullable Throwable cause) {
        this("final failure for idempotency key " + key.key() + ": " + code
                + (detail.isEmpty() ? "" : " (" + detail + ")"), key, code, detail, cause);
    }

    /**
     * Creates the exception with its own message, for subtypes.
     *
     * @param message the exception message
     * @param key the key whose execution failed
     * @param code the failure code
     * @param detail the stored message
     * @param cause the original exception, or null
     */
    protected FinalFailureException(String message, IdempotencyKey key, String code, String detail,
            @Nullable Throwable cause) {
        super(message, cause);
        this.key = key;
        this.code = code;
        this.detail = detail;
    }

    /**
     * The key whose execution failed.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * The failure code the classifier chose, for example {@code card_declined}.
     *
     * @return the code
     */
    public String code() {
        return code;
    }

    /**
     * The stored human-readable message.
     *
     * @return the message; may be empty
     */
    public String detail() {
        return detail;
    }

    /** 422: a final failure is a property of the request, so every answer to it is too. */
    @Override
    public int httpStatus() {
        return 422;
    }
}
