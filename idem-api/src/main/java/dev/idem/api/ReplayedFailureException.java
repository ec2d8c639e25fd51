package dev.idem.api;

/**
 * The key's first execution ended in a failure classified as final (a declined card, a
 * validation error); that failure was stored and is replayed here without running the
 * work again. Carries the stored code and message, never a serialized exception.
 */
public class ReplayedFailureException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    private final IdempotencyKey key;
    private final String code;
    private final String detail;

    /** Creates the exception from a stored failure. */
    public ReplayedFailureException(IdempotencyKey key, String code, String detail) {
        super("replayed final failure for idempotency key " + key.key() + ": " + code
                + (detail.isEmpty() ? "" : " (" + detail + ")"));
        this.key = key;
        this.code = code;
        this.detail = detail;
    }

    /** The key whose failure is replayed. */
    public IdempotencyKey key() {
        return key;
    }

    /** The failure code the classifier chose, for example {@code card_declined}. */
    public String code() {
        return code;
    }

    /** The stored human-readable message; may be empty. */
    public String detail() {
        return detail;
    }

    /** 422: a final failure is a property of the request, so the replay is too. */
    @Override
    public int httpStatus() {
        return 422;
    }
}
