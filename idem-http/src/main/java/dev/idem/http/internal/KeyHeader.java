package dev.idem.http.internal;

import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.InvalidIdempotencyKeyException;
import java.util.List;

/**
 * Reads the {@code Idempotency-Key} field: the draft's Structured Field string
 * ({@code "abc"}, RFC 8941 escapes {@code \"} and {@code \\}, parameters after it ignored)
 * or, leniently, a bare token. Not API: a checked-exception view of the public
 * {@link IdempotencyKeyHeader}.
 */
public final class KeyHeader {
    private KeyHeader() {
    }

    /** Thrown for a field that is present but unusable; the message says why. */
    public static final class InvalidKeyException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidKeyException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The key carried by the field values, or null if the field is absent.
     *
     * @param values every value of the field, in order
     * @return the key without quotes, or null if the field is absent
     * @throws InvalidKeyException if the field is repeated, empty, malformed, or the key is not
     *     1..255 visible ASCII characters
     */
    public static String parse(List<String> values) throws InvalidKeyException {
        try {
            return IdempotencyKeyHeader.parse(values).orElse(null);
        } catch (InvalidIdempotencyKeyException e) {
            throw new InvalidKeyException(e.getMessage());
        }
    }
}
