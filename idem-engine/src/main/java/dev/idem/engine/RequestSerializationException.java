package dev.idem.engine;

import dev.idem.api.IdempotencyException;

/**
 * A request object (POJO, Map) could not be written as JSON to be fingerprinted, for
 * example a {@code java.time.Instant} with no JSR-310 module registered on the engine's
 * ObjectMapper. The object was built by the server, so this is the server's fault (HTTP 500),
 * unlike {@link dev.idem.api.InvalidRequestException} (400). Raised before anything is stored.
 */
public class RequestSerializationException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what could not be written
     * @param cause the ObjectMapper's exception
     */
    public RequestSerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
