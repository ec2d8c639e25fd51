package dev.idem.http.internal;

import dev.idem.api.IdempotencyKey;
import java.util.List;

/**
 * Reads the {@code Idempotency-Key} field: the draft's Structured Field string
 * ({@code "abc"}, RFC 8941 escapes {@code \"} and {@code \\}, parameters after it ignored)
 * or, leniently, a bare token. Not API.
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
     * @throws InvalidKeyException if the field is repeated, empty, malformed, or the key is not
     *     1..255 visible ASCII characters
     */
    public static String parse(List<String> values) throws InvalidKeyException {
        if (values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new InvalidKeyException("the Idempotency-Key field must appear once, but appeared "
                    + values.size() + " times");
        }
        String value = strip(values.get(0));
        String key = value.startsWith("\"") ? quoted(value) : value;
        if (key.isEmpty()) {
            throw new InvalidKeyException("the Idempotency-Key field is empty");
        }
        if (key.length() > IdempotencyKey.MAX_KEY_LENGTH) {
            throw new InvalidKeyException("the idempotency key is " + key.length()
                    + " characters long; at most " + IdempotencyKey.MAX_KEY_LENGTH + " are allowed");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw new InvalidKeyException(String.format(
                        "the idempotency key has a character outside visible ASCII (U+%04X) at index %d", (int) c, i));
            }
        }
        return key;
    }

    private static String quoted(String value) throws InvalidKeyException {
        StringBuilder out = new StringBuilder(value.length());
        int i = 1;
        while (true) {
            if (i >= value.length()) {
                throw new InvalidKeyException("the Idempotency-Key string has no closing quote");
            }
            char c = value.charAt(i++);
            if (c == '\\') {
                if (i >= value.length()) {
                    throw new InvalidKeyException("the Idempotency-Key string ends in a lone backslash");
                }
                char escaped = value.charAt(i++);
                if (escaped != '"' && escaped != '\\') {
                    throw new InvalidKeyException("the Idempotency-Key string has an invalid escape \\" + escaped);
                }
                out.append(escaped);
            } else if (c == '"') {
                break;
            } else if (c < 0x20 || c > 0x7E) {
                throw new InvalidKeyException(String.format(
                        "the Idempotency-Key string has a character outside printable ASCII (U+%04X)", (int) c));
            } else {
                out.append(c);
            }
        }
        String rest = value.substring(i);
        // Structured Field parameters (";name=value") are allowed after the item and carry nothing for us.
        if (!rest.isEmpty() && rest.charAt(0) != ';') {
            throw new InvalidKeyException("the Idempotency-Key field has unexpected content after the string");
        }
        return out.toString();
    }

    private static String strip(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return value.substring(start, end);
    }
}
