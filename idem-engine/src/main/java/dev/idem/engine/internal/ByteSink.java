package dev.idem.engine.internal;

import java.nio.charset.StandardCharsets;
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

    /** Writes {@code s} as UTF-8; the caller has checked it holds no lone surrogate. */
    void writeUtf8(String s, int from, int to) {
        if (from == to) {
            return;
        }
        boolean ascii = true;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) >= 0x80) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            ensure(to - from);
            for (int i = from; i < to; i++) {
                buf[size++] = (byte) s.charAt(i);
            }
        } else {
            write(s.substring(from, to).getBytes(StandardCharsets.UTF_8));
        }
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

    void reset() {
        size = 0;
    }

    private void ensure(int extra) {
        if (size + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
        }
    }
}
