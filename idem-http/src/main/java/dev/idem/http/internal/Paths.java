package dev.idem.http.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One spelling per path, so that a retry that spells the path differently is still the same
 * intent: path parameters ({@code ;x=1}) are dropped from every segment, percent-escapes are
 * decoded and only what must be escaped is escaped again (upper-case hex, UTF-8), empty
 * segments ({@code //}) and {@code .} are dropped, {@code ..} removes the segment before it
 * (never above the root). A trailing slash is kept: {@code /a/} and {@code /a} are two
 * resources to most routers. An escaped slash ({@code %2F}) stays escaped, inside its
 * segment. Not API.
 */
public final class Paths {
    private static final String UNRESERVED_AND_SUB_DELIMS = "-._~!$&'()*+,=:@";

    private Paths() {
    }

    /**
     * The canonical spelling of {@code rawPath} (not decoded, without the query).
     *
     * @param rawPath the request path as sent
     * @return the canonical path, always starting with {@code /}
     */
    public static String normalize(String rawPath) {
        Deque<String> segments = new ArrayDeque<>();
        boolean trailingSlash = false;
        int start = rawPath.startsWith("/") ? 1 : 0;
        int n = rawPath.length();
        while (start <= n) {
            int end = rawPath.indexOf('/', start);
            if (end < 0) {
                end = n;
            }
            String segment = rawPath.substring(start, end);
            int semi = segment.indexOf(';');
            if (semi >= 0) {
                segment = segment.substring(0, semi);
            }
            String decoded = decode(segment);
            boolean last = end == n;
            if (decoded.isEmpty() || decoded.equals(".")) {
                trailingSlash = last && !segments.isEmpty();
            } else if (decoded.equals("..")) {
                segments.pollLast();
                trailingSlash = last && !segments.isEmpty();
            } else {
                segments.addLast(decoded);
                trailingSlash = false;
            }
            start = end + 1;
        }
        StringBuilder out = new StringBuilder(rawPath.length() + 1);
        for (String s : segments) {
            out.append('/');
            encode(s, out);
        }
        if (out.length() == 0) {
            return "/";
        }
        return trailingSlash ? out.append('/').toString() : out.toString();
    }

    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        int i = 0;
        while (i < segment.length()) {
            char c = segment.charAt(i);
            if (c == '%' && i + 2 < segment.length() && hex(segment.charAt(i + 1)) >= 0
                    && hex(segment.charAt(i + 2)) >= 0) {
                bytes.write(hex(segment.charAt(i + 1)) << 4 | hex(segment.charAt(i + 2)));
                i += 3;
            } else {
                int cp = segment.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static void encode(String segment, StringBuilder out) {
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c < 0x80 && (Character.isLetterOrDigit(c) || UNRESERVED_AND_SUB_DELIMS.indexOf(c) >= 0)) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
