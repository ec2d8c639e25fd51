package dev.idem.engine.internal;

import java.util.Arrays;

/** A growable byte buffer without the synchronization of ByteArrayOutputStream. */
final class ByteSink {
    private byte[] buf;
    private int size;

    ByteSink(int initial) {
        buf = new byte[Math.max(16, initial)];
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void write(byte[] bytes) {
        write(bytes, 0, bytes.length);
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
                    writeEscape(c);
                }
            } else if (c < 0x800) {
                buf[size++] = (byte) (0xC0 | (c >> 6));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 >= end || !Character.isLowSurrogate(chars[i + 1])) {
                    return i - off;
                }
                int cp = Character.toCodePoint(c, chars[++i]);
                ensure(4 + (end - i) * 3);
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

    private void writeEscape(char c) {
        buf[size++] = '\\';
        switch (c) {
            case '"': buf[size++] = '"'; break;
            case '\\': buf[size++] = '\\'; break;
            case '\b': buf[size++] = 'b'; break;
            case '\f': buf[size++] = 'f'; break;
            case '\n': buf[size++] = 'n'; break;
            case '\r': buf[size++] = 'r'; break;
            case '\t': buf[size++] = 't'; break;
            default:
                buf[size++] = 'u';
                buf[size++] = '0';
                buf[size++] = '0';
                buf[size++] = HEX[c >> 4];
                buf[size++] = HEX[c & 0xF];
        }
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

    private void ensure(int extra) {
        if (size + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
        }
    }
}
