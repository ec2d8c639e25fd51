package dev.idem.benchmarks;

import java.util.Locale;

/**
 * Deterministic JSON requests of a chosen size, shaped like real API payloads: members out
 * of canonical order, nested objects, arrays, escapes, non-ASCII text, integers and
 * decimals, so canonicalization has real work to do.
 */
public final class Documents {
    private Documents() {
    }

    /** A ~200-byte payment request: the request of every store benchmark. */
    public static final String PAYMENT = "{\"amount\":4250,\"currency\":\"EUR\",\"customer\":\"cus_Q1w2E3r4T5y6\","
            + "\"description\":\"Order #10443 \u2013 caf\u00e9 cr\u00e8me\",\"metadata\":{\"order\":\"10443\","
            + "\"channel\":\"web\"},\"capture\":true,\"fee\":1.25e0,\"items\":[3,1]}";

    /**
     * A JSON object of exactly {@code bytes} UTF-8 bytes: order items until the next one
     * would not fit, then a memo string that pads to the size.
     */
    public static String ofSize(int bytes) {
        if (bytes < 96) {
            throw new IllegalArgumentException("bytes must be at least 96 but was " + bytes);
        }
        StringBuilder sb = new StringBuilder(bytes + 128);
        sb.append("{\"version\":2,\"customer\":{\"name\":\"Zo\u00eb\",\"id\":\"c9\"},\"items\":[");
        String tail = "],\"total\":1.0E2,\"memo\":\"";
        for (int i = 0; ; i++) {
            String item = (i > 0 ? "," : "") + String.format(Locale.ROOT,
                    "{\"sku\":\"A-%05d\",\"qty\":%d,\"price\":%d.%02d,\"note\":\"line\\t%d \\u00e9\"}",
                    i, 1 + i % 7, 3 + i % 90, i % 100, i);
            if (utf8Length(sb) + item.length() + tail.length() + 2 > bytes) {
                break;
            }
            sb.append(item);
        }
        sb.append(tail);
        sb.append("x".repeat(bytes - utf8Length(sb) - 2));
        sb.append("\"}");
        return sb.toString();
    }

    /**
     * A JSON document of about {@code bytes} UTF-8 bytes nested {@code depth} objects deep:
     * each level holds an equal share of out-of-order members and the next level last, so
     * every level has sorting to do.
     */
    public static String nested(int bytes, int depth) {
        if (depth < 1 || bytes < 64 * depth) {
            throw new IllegalArgumentException("need depth >= 1 and at least 64 bytes per level: " + bytes + ", " + depth);
        }
        int perLevel = bytes / depth;
        StringBuilder sb = new StringBuilder(bytes + 64 * depth);
        for (int level = 0; level < depth; level++) {
            sb.append('{');
            int start = sb.length();
            for (int m = 0; sb.length() - start < perLevel - 48; m++) {
                sb.append(String.format(Locale.ROOT, "\"z%04d\":[%d,\"caf\u00e9 %d\",%d.5],", 9999 - m, m, level, m));
            }
            sb.append("\"next\":");
        }
        sb.append("null");
        sb.append("}".repeat(depth));
        return sb.toString();
    }

    private static int utf8Length(CharSequence s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }
}
