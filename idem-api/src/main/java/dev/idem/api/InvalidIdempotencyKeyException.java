package dev.idem.api;

/** The key, scope or operation is malformed (HTTP 400). Nothing was stored. */
public class InvalidIdempotencyKeyException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; the message says which part failed and why.
     *
     * @param message the message
     */
    public InvalidIdempotencyKeyException(String message) {
        super(message);
    }

    @Override
    public int httpStatus() {
        return 400;
    }
}
