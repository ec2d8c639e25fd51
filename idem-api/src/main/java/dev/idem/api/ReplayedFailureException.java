package dev.idem.api;

/**
 * The key's first execution ended in a failure classified as final (a declined card, a
 * validation error); that failure was stored and is replayed here without running the
 * work again. Carries the stored code and message, never a serialized exception. The first
 * caller got the supertype {@link FinalFailureException} with the same code, message and
 * status.
 */
public class ReplayedFailureException extends FinalFailureException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception from a stored failure.
     *
     * @param key the key whose failure is replayed
     * @param code the stored failure code
     * @param detail the stored message; may be empty
     */
    public ReplayedFailureException(IdempotencyKey key, String code, String detail) {
        super("replayed final failure for idempotency key " + key.key() + ": " + code
                + (detail.isEmpty() ? "" : " (" + detail + ")"), key, code, detail, null);
    }
}
