package dev.idem.api;

import java.util.List;
import java.util.Optional;

/**
 * The {@code Idempotency-Key} HTTP header field of the IETF draft "The Idempotency-Key HTTP
 * Header Field": parsing for servers on any framework, formatting for clients.
 *
 * <p>The draft defines the field as a Structured Field string (RFC 8941), for example
 * {@code Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"}. {@link #parse(List)}
 * accepts that form (with its {@code \"} and {@code \\} escapes; parameters after the string are
 * ignored) and, leniently, a bare token, and returns the key without quotes, ready for
 * {@link IdempotencyKey#of(String, String, String)}. A bare value with a comma is refused: in a
 * Structured Field a comma separates list members, so {@code a,b} is a list of two items, not one
 * key (a key with commas is sent quoted, {@code "a,b"}, as {@link #format(String)} writes it).
 *
 * <p>A key is 1 to {@value IdempotencyKey#MAX_KEY_LENGTH} visible ASCII characters.
 */
public final class IdempotencyKeyHeader {

    /** The field name, {@value}. */
    public static final String NAME = "Idempotency-Key";

    private IdempotencyKeyHeader() {
    }

    /**
     * The key carried by the field's values, as a server received them.
     *
     * @param values every value of the field in the request, in order (empty if absent)
     * @return the key without quotes, or empty if the field is absent
     * @throws InvalidIdempotencyKeyException (400) if the field is repeated, empty or malformed,
     *     or the key is not 1 to 255 visible ASCII characters; the message says which
     */
    public static Optional<String> parse(List<String> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new InvalidIdempotencyKeyException("the Idempotency-Key field must appear once, but appeared "
                    + values.size() + " times");
        }
        return Optional.of(parse(values.get(0)));
    }

    /**
     * The key carried by one field value.
     *
     * @param value the field value, quoted ({@code "abc"}) or bare ({@code abc})
     * @return the key without quotes
     * @throws InvalidIdempotencyKeyException (400) if the value is empty or malformed (a bare
     *     value with a comma is a list, not a key), or the key is not 1 to 255 visible ASCII characters
     */
    public static String parse(String value) {
        String v = FieldValues.trimOws(value);
        if (v.startsWith("\"")) {
            String key = unquote(v);
            check(key);
            return key;
        }
        check(v);
        if (v.indexOf(',') >= 0) {
            throw new InvalidIdempotencyKeyException("the Idempotency-Key field is a list (a bare value with a"
                    + " comma), not one key; a key with commas is sent as a quoted string, \"a,b\"");
        }
        return v;
    }

    /**
     * The draft's Structured Field string form of {@code key}, for a request header.
     *
     * @param key the key, 1 to 255 visible ASCII characters
     * @return the key in double quotes, with {@code "} and {@code \} escaped
     * @throws InvalidIdempotencyKeyException if the key is not 1 to 255 visible ASCII characters
     */
    public static String format(String key) {
        check(key);
        StringBuilder out = new StringBuilder(key.length() + 2).append('"');
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append('"').toString();
    }

    private static void check(String key) {
        if (key.isEmpty()) {
            throw new InvalidIdempotencyKeyException("the Idempotency-Key field is empty");
        }
        if (key.length() > IdempotencyKey.MAX_KEY_LENGTH) {
            throw new InvalidIdempotencyKeyException("the idempotency key is " + key.length()
                    + " characters long; at most " + IdempotencyKey.MAX_KEY_LENGTH + " are allowed");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw new InvalidIdempotencyKeyException(String.format(
                        "the idempotency key has a character outside visible ASCII (U+%04X) at index %d", (int) c, i));
            }
        }
    }

    private static String unquote(String value) {
        StringBuilder out = new StringBuilder(value.length());
        int i = 1;
        while (true) {
            if (i >= value.length()) {
                throw new InvalidIdempotencyKeyException("the Idempotency-Key string has no closing quote");
            }
            char c = value.charAt(i++);
            if (c == '\\') {
                if (i >= value.length()) {
                    throw new InvalidIdempotencyKeyException("the Idempotency-Key string ends in a lone backslash");
                }
                char escaped = value.charAt(i++);
                if (escaped != '"' && escaped != '\\') {
                    throw new InvalidIdempotencyKeyException(
                            "the Idempotency-Key string has an invalid escape \\" + escaped);
                }
                out.append(escaped);
            } else if (c == '"') {
                break;
            } else if (c < 0x20 || c > 0x7E) {
                throw new InvalidIdempotencyKeyException(String.format(
                        "the Idempotency-Key string has a character outside printable ASCII (U+%04X)", (int) c));
            } else {
                out.append(c);
            }
        }
        String rest = value.substring(i);
        // Structured Field parameters (";name=value") may follow the item and carry nothing for us.
        if (!rest.isEmpty() && rest.charAt(0) != ';') {
            throw new InvalidIdempotencyKeyException(
                    "the Idempotency-Key field has unexpected content after the string");
        }
        return out.toString();
    }
}
