package dev.idem.engine.internal.json;

/**
 * UTF-8 for the canonicalizer: strict decoding checks, encoding of text requests, and the
 * RFC 8785 member order (UTF-16 code units) computed on canonical UTF-8 bytes.
 */
final class Utf8 {
    /** {@link #sequenceLength} of a UTF-16 surrogate encoded in UTF-8 (not UTF-8, a lone surrogate). */
    static final int SURROGATE = -1;

    private Utf8() {
    }

    /**
     * The length of the well-formed UTF-8 sequence of two to four bytes at {@code s[p]} (a
     * byte of 0x80 or more); 0 if it is not well formed (overlong, truncated, beyond
     * U+10FFFF), {@link #SURROGATE} if it encodes a surrogate code unit.
     */
    static int sequenceLength(byte[] s, int p, int limit) {
        int b0 = s[p] & 0xFF;
        int n;
        int min2 = 0x80;
        int max2 = 0xBF;
        if (b0 < 0xC2) {
            return 0;
        } else if (b0 < 0xE0) {
            n = 2;
        } else if (b0 < 0xF0) {
            n = 3;
            if (b0 == 0xE0) {
                min2 = 0xA0;
            } else if (b0 == 0xED) {
                max2 = 0x9F;
            }
        } else if (b0 < 0xF5) {
            n = 4;
            if (b0 == 0xF0) {
                min2 = 0x90;
            } else if (b0 == 0xF4) {
                max2 = 0x8F;
            }
        } else {
            return 0;
        }
        if (p + n > limit) {
            return 0;
        }
        int b1 = s[p + 1] & 0xFF;
        if (b1 < min2 || b1 > max2) {
            return b0 == 0xED && b1 >= 0xA0 && b1 <= 0xBF && (s[p + 2] & 0xC0) == 0x80 ? SURROGATE : 0;
        }
        for (int i = 2; i < n; i++) {
            if ((s[p + i] & 0xC0) != 0x80) {
                return 0;
            }
        }
        return n;
    }

    /** Writes BMP character {@code c} (not a surrogate) at {@code b[o]}; returns the end. */
    static int writeChar(byte[] b, int o, int c) {
        if (c < 0x80) {
            b[o++] = (byte) c;
        } else if (c < 0x800) {
            b[o++] = (byte) (0xC0 | (c >> 6));
            b[o++] = (byte) (0x80 | (c & 0x3F));
        } else {
            b[o++] = (byte) (0xE0 | (c >> 12));
            b[o++] = (byte) (0x80 | ((c >> 6) & 0x3F));
            b[o++] = (byte) (0x80 | (c & 0x3F));
        }
        return o;
    }

    /** Writes supplementary code point {@code cp} at {@code b[o]}; returns the end. */
    static int writeCodePoint(byte[] b, int o, int cp) {
        b[o++] = (byte) (0xF0 | (cp >> 18));
        b[o++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        b[o++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        b[o++] = (byte) (0x80 | (cp & 0x3F));
        return o;
    }

    /**
     * Encodes {@code chars[0, n)} as UTF-8 into {@code out} (from offset 0), a lone surrogate
     * as its three-byte form, which is not UTF-8, so the parser reports it where it stands.
     */
    static void encode(char[] chars, int n, ByteSink out) {
        out.size = 0;
        if (out.buf.length < n) {
            out.ensure(n);
        }
        byte[] b = out.buf;
        int i = 0;
        for (; i < n; i++) {
            char c = chars[i];
            if (c >= 0x80) {
                break;
            }
            b[i] = (byte) c;
        }
        if (i == n) {
            out.size = n;
            return;
        }
        out.size = i;
        if (out.buf.length < i + 3L * (n - i)) {
            out.ensure((int) Math.min(Integer.MAX_VALUE - 8, length(chars, i, n)));
        }
        b = out.buf;
        int o = i;
        for (; i < n; i++) {
            char c = chars[i];
            if (c < 0x80) {
                b[o++] = (byte) c;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(chars[i + 1])) {
                o = writeCodePoint(b, o, Character.toCodePoint(c, chars[++i]));
            } else {
                o = writeChar(b, o, c);
            }
        }
        out.size = o;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long HIGHS = 0x8080808080808080L;

    /**
     * Well-formed UTF-8 {@code b[0, n)} as a {@code String}, as {@link #decode} makes it, but
     * ASCII text (most canonical JSON) in one copy: it is checked eight bytes at a time and
     * handed to the string as Latin-1, which the JDK copies as it is. Text with any other byte
     * stops the check at the first one and goes to {@link #decode}.
     */
    static String text(byte[] b, int n, ByteSink scratch) {
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            if (((long) LONGS.get(b, i) & HIGHS) != 0) {
                return decode(b, n, scratch);
            }
        }
        for (; i < n; i++) {
            if (b[i] < 0) {
                return decode(b, n, scratch);
            }
        }
        return new String(b, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /**
     * Well-formed UTF-8 {@code b[0, n)} as a {@code String}. Text whose characters all fit in
     * Latin-1 (most JSON: ASCII with accented letters) is decoded here into {@code scratch} and
     * copied once into the string, which keeps it in its compact form; the JDK's own decoder,
     * which checks every sequence, only gets text beyond U+00FF.
     */
    static String decode(byte[] b, int n, ByteSink scratch) {
        scratch.size = 0;
        scratch.ensure(n);
        byte[] out = scratch.buf;
        int o = 0;
        for (int i = 0; i < n; i++) {
            byte c = b[i];
            if (c >= 0) {
                out[o++] = c;
            } else if ((c & 0xFE) == 0xC2) {
                // C2 xx and C3 xx: U+0080 to U+00FF, one Latin-1 byte.
                out[o++] = (byte) ((c & 0x03) << 6 | b[++i] & 0x3F);
            } else {
                return new String(b, 0, n, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        return new String(out, 0, o, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** The UTF-8 length of {@code chars[from, n)}, a lone surrogate counted as three bytes. */
    static long length(char[] chars, int from, int n) {
        long bytes = n - from;
        for (int i = from; i < n; i++) {
            char c = chars[i];
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(chars[i + 1])) {
                    bytes += 2;
                    i++;
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    /**
     * The UTF-16 index, within the string text starting at {@code s[from]}, of the character
     * or escape at {@code s[at]}.
     */
    static int utf16Index(byte[] s, int from, int at) {
        int units = 0;
        int p = from;
        while (p < at) {
            int c = s[p] & 0xFF;
            if (c == '\\') {
                p += s[p + 1] == 'u' ? 6 : 2;
                units++;
            } else if (c < 0x80) {
                p++;
                units++;
            } else {
                int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
                p += n;
                units += n == 4 ? 2 : 1;
            }
        }
        return units;
    }

    /**
     * Compares two canonical string bodies {@code t[a, aEnd)} and {@code t[b, bEnd)} by their
     * UTF-16 code units (RFC 8785 section 3.2.3), decoding their escapes and supplementary
     * characters; the fast path for bodies without either is a plain byte comparison.
     */
    static int compareUtf16(byte[] t, int a, int aEnd, int b, int bEnd) {
        int pendingA = -1;
        int pendingB = -1;
        while (true) {
            int ua;
            if (pendingA >= 0) {
                ua = pendingA;
                pendingA = -1;
            } else if (a < aEnd) {
                int cp = codePointAt(t, a);
                a += lengthAt(t, a);
                if (cp >= 0x10000) {
                    ua = Character.highSurrogate(cp);
                    pendingA = Character.lowSurrogate(cp);
                } else {
                    ua = cp;
                }
            } else {
                ua = -1;
            }
            int ub;
            if (pendingB >= 0) {
                ub = pendingB;
                pendingB = -1;
            } else if (b < bEnd) {
                int cp = codePointAt(t, b);
                b += lengthAt(t, b);
                if (cp >= 0x10000) {
                    ub = Character.highSurrogate(cp);
                    pendingB = Character.lowSurrogate(cp);
                } else {
                    ub = cp;
                }
            } else {
                ub = -1;
            }
            if (ua != ub || ua < 0) {
                return ua - ub;
            }
        }
    }

    // The code point at t[p] of a canonical string body (escapes are backslash followed by a
    // quote, a backslash, b, f, n, r, t, or u00xx only).
    private static int codePointAt(byte[] t, int p) {
        int c = t[p] & 0xFF;
        if (c == '\\') {
            switch (t[p + 1]) {
                case 'b': return '\b';
                case 'f': return '\f';
                case 'n': return '\n';
                case 'r': return '\r';
                case 't': return '\t';
                case 'u': return Character.digit(t[p + 4], 16) << 4 | Character.digit(t[p + 5], 16);
                default: return t[p + 1];
            }
        }
        if (c < 0x80) {
            return c;
        }
        if (c < 0xE0) {
            return (c & 0x1F) << 6 | (t[p + 1] & 0x3F);
        }
        if (c < 0xF0) {
            return (c & 0x0F) << 12 | (t[p + 1] & 0x3F) << 6 | (t[p + 2] & 0x3F);
        }
        return (c & 0x07) << 18 | (t[p + 1] & 0x3F) << 12 | (t[p + 2] & 0x3F) << 6 | (t[p + 3] & 0x3F);
    }

    private static int lengthAt(byte[] t, int p) {
        int c = t[p] & 0xFF;
        if (c == '\\') {
            return t[p + 1] == 'u' ? 6 : 2;
        }
        return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    }
}
