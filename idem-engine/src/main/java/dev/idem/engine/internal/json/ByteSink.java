package dev.idem.engine.internal.json;

import java.util.Arrays;

/**
 * A growable byte buffer without the synchronization of ByteArrayOutputStream. The
 * canonicalizer's hot loops read and write {@link #buf} and {@link #size} directly after one
 * {@link #ensure} for a whole token, instead of a bounds check per byte.
 */
final class ByteSink {
    byte[] buf;
    int size;

    ByteSink(int initial) {
        buf = new byte[Math.max(16, initial)];
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void write(byte[] bytes, int off, int len) {
        ensure(len);
        System.arraycopy(bytes, off, buf, size, len);
        size += len;
    }

    void writeAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[size++] = (byte) s.charAt(i);
        }
    }

    /** Writes a non-negative number in decimal. */
    void writeDecimal(long n) {
        ensure(20);
        int digits = 1;
        for (long x = n; x >= 10; x /= 10) {
            digits++;
        }
        for (int i = size + digits - 1; i >= size; i--) {
            buf[i] = (byte) ('0' + n % 10);
            n /= 10;
        }
        size += digits;
    }

    /**
     * Writes {@code chars[off, off+len)} as the body of an RFC 8785 string: minimal escapes,
     * everything else as UTF-8. Returns the index (relative to {@code off}) of a lone
     * surrogate, or -1 when the text is well formed.
     */
    int writeJsonStringBody(char[] chars, int off, int len) {
        ensure(len * 3);
        int end = off + len;
        for (int i = off; i < end; i++) {
            char c = chars[i];
            if (c < 0x80) {
                if (c >= 0x20 && c != '"' && c != '\\') {
                    buf[size++] = (byte) c;
                } else {
                    ensure(6 + (end - i) * 3);
                    size = writeEscape(buf, size, c);
                }
            } else if (c < 0x800) {
                buf[size++] = (byte) (0xC0 | (c >> 6));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= end || !Character.isLowSurrogate(chars[i + 1])) {
                    return i - off;
                }
                // Two chars had six bytes of the room made above; their code point takes four.
                int cp = Character.toCodePoint(c, chars[++i]);
                buf[size++] = (byte) (0xF0 | (cp >> 18));
                buf[size++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                buf[size++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                buf[size++] = (byte) (0xE0 | (c >> 12));
                buf[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return -1;
    }

    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    /**
     * Writes the RFC 8785 escape of {@code c} (a control character, a quote or a backslash)
     * at {@code at}, which has room for six bytes; returns the position after it.
     */
    static int writeEscape(byte[] buf, int at, int c) {
        buf[at++] = '\\';
        switch (c) {
            case '"': buf[at++] = '"'; break;
            case '\\': buf[at++] = '\\'; break;
            case '\b': buf[at++] = 'b'; break;
            case '\f': buf[at++] = 'f'; break;
            case '\n': buf[at++] = 'n'; break;
            case '\r': buf[at++] = 'r'; break;
            case '\t': buf[at++] = 't'; break;
            default:
                buf[at++] = 'u';
                buf[at++] = '0';
                buf[at++] = '0';
                buf[at++] = HEX[c >> 4];
                buf[at++] = HEX[c & 0xF];
        }
        return at;
    }

    /** Truncates to {@code newSize} bytes. */
    void truncate(int newSize) {
        size = newSize;
    }

    int size() {
        return size;
    }

    byte[] array() {
        return buf;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** Makes room for {@code extra} more bytes. */
    void ensure(int extra) {
        if (size + extra > buf.length) {
            grow(extra);
        }
    }

    private void grow(int extra) {
        long wanted = Math.max((long) buf.length * 2, (long) size + extra);
        buf = Arrays.copyOf(buf, (int) Math.min(wanted, Integer.MAX_VALUE - 8));
    }
}
