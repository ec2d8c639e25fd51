package dev.idem.client.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the {@code type} member of an RFC 9457 problem document without a JSON library. A pattern
 * match, not a parser: it takes the first {@code "type": "..."} pair, which in a problem document is
 * the top-level member in every server we know of. Not API.
 */
public final class ProblemType {

    /** Problem documents are small; a large body is not a problem document worth scanning. */
    static final int MAX_SCANNED_CHARS = 8192;

    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private ProblemType() {}

    /** Returns the problem type of a {@code String} or UTF-8 {@code byte[]} body, if it has one. */
    public static Optional<String> of(Object body) {
        String text;
        if (body instanceof String s) {
            text = s.length() > MAX_SCANNED_CHARS ? s.substring(0, MAX_SCANNED_CHARS) : s;
        } else if (body instanceof byte[] bytes) {
            byte[] head = bytes.length > MAX_SCANNED_CHARS ? Arrays.copyOf(bytes, MAX_SCANNED_CHARS) : bytes;
            text = new String(head, StandardCharsets.UTF_8);
        } else {
            return Optional.empty();
        }
        Matcher m = TYPE.matcher(text);
        return m.find() ? Optional.of(m.group(1).replace("\\/", "/")) : Optional.empty();
    }
}
