package dev.idem.api;

/**
 * The {@code X-Request-Timeout} header is malformed (HTTP 400): repeated, empty, signed,
 * fractional, longer than eight digits, or with a unit other than grpc-timeout's. Nothing was
 * stored; see {@link RequestTimeoutHeader} for the format.
 */
public class InvalidRequestTimeoutException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; the message says what is wrong with the value.
     *
     * @param message the message
     */
    public InvalidRequestTimeoutException(String message) {
        super(message);
    }

    @Override
    public int httpStatus() {
        return 400;
    }
}
