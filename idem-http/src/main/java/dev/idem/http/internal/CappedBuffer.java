package dev.idem.http.internal;

import java.io.ByteArrayOutputStream;

/**
 * A response body buffer that keeps at most {@code cap} bytes and counts the rest. The filter
 * must hold the response until it is stored, and nothing larger than the store's outcome limit
 * can be stored, so more memory than that would buy nothing: past the cap the bytes are
 * dropped, and the response is later refused as too large (the engine stores its "outcome not
 * stored" marker). Not thread-safe, like the response it backs. Not API.
 */
public final class CappedBuffer extends ByteArrayOutputStream {
    private final int cap;
    private long written;

    /**
     * A buffer of at most {@code cap} bytes.
     *
     * @param cap the most bytes kept; positive
     */
    public CappedBuffer(int cap) {
        super(Math.min(cap, 8192));
        if (cap < 1) {
            throw new IllegalArgumentException("cap must be positive but was " + cap);
        }
        this.cap = cap;
    }

    @Override
    public synchronized void write(int b) {
        written++;
        if (count < cap) {
            super.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        written += len;
        int room = cap - count;
        if (room > 0) {
            super.write(b, off, Math.min(room, len));
        }
    }

    @Override
    public synchronized void reset() {
        super.reset();
        written = 0;
    }

    /**
     * Whether more bytes were written than the cap keeps.
     *
     * @return whether bytes were dropped
     */
    public synchronized boolean overflowed() {
        return written > count;
    }

    /**
     * How many bytes were written in all, kept or dropped.
     *
     * @return the total written since the last reset
     */
    public synchronized long written() {
        return written;
    }
}
