package dev.idem.engine;

import dev.idem.engine.internal.OutcomeCodec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A result the engine stores as the bytes it holds instead of as JSON, for work whose result
 * is already bytes (a rendered HTTP response, a serialized message): a replay gets the stored
 * bytes back as they are, without decoding anything, and can write them straight out.
 *
 * <pre>{@code
 * Result<StoredBytes> r = engine.execute(key, request, StoredBytes.class,
 *         ctx -> StoredBytes.of(render(gateway.charge(request))));
 * r.value().writeTo(response.getOutputStream());
 * }</pre>
 *
 * <p>Asked for as the result type, it also reads an outcome stored as JSON by another result
 * type: it then holds that outcome's UTF-8 JSON text. Immutable: a replay's instance is a
 * read-only view of the stored outcome, never copied; {@link #toByteArray()} copies.
 */
public final class StoredBytes {
    private static final StoredBytes EMPTY = new StoredBytes(new byte[0], 0, 0);

    private final byte[] bytes;
    private final int offset;
    private final int length;

    private StoredBytes(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
    }

    /**
     * The bytes to store: a copy of {@code bytes}.
     *
     * @param bytes the bytes
     * @return the result to store
     */
    public static StoredBytes of(byte[] bytes) {
        return bytes.length == 0 ? EMPTY : new StoredBytes(bytes.clone(), 0, bytes.length);
    }

    /**
     * The bytes to store, without copying: the caller must not change {@code bytes} afterwards.
     *
     * @param bytes the bytes
     * @return the result to store
     */
    public static StoredBytes wrap(byte[] bytes) {
        return new StoredBytes(Objects.requireNonNull(bytes, "bytes"), 0, bytes.length);
    }

    /** A view of {@code bytes[offset, offset + length)}, which nobody changes afterwards. */
    static StoredBytes view(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return new StoredBytes(bytes, offset, length);
    }

    /** The stored outcome of these bytes. */
    byte[] encode(OutcomeCodec codec) {
        return codec.encodeBytes(bytes, offset, length);
    }

    /**
     * The number of bytes.
     *
     * @return the length
     */
    public int length() {
        return length;
    }

    /**
     * One byte.
     *
     * @param index from 0 to {@link #length()} - 1
     * @return the byte at {@code index}
     * @throws IndexOutOfBoundsException if {@code index} is out of range
     */
    public byte byteAt(int index) {
        Objects.checkIndex(index, length);
        return bytes[offset + index];
    }

    /**
     * A copy of the bytes.
     *
     * @return a new array
     */
    public byte[] toByteArray() {
        return Arrays.copyOfRange(bytes, offset, offset + length);
    }

    /**
     * The bytes as a read-only buffer over them (no copy).
     *
     * @return a read-only buffer positioned at the first byte
     */
    public ByteBuffer asReadOnlyBuffer() {
        return ByteBuffer.wrap(bytes, offset, length).slice().asReadOnlyBuffer();
    }

    /**
     * Writes the bytes to {@code out} (no copy).
     *
     * @param out where to write them
     * @throws IOException if {@code out} fails
     */
    public void writeTo(OutputStream out) throws IOException {
        out.write(bytes, offset, length);
    }

    /**
     * Writes {@code bytes[from, from + count)} to {@code out} (no copy).
     *
     * @param out where to write them
     * @param from the first byte
     * @param count how many bytes
     * @throws IOException if {@code out} fails
     * @throws IndexOutOfBoundsException if the range is not within {@link #length()}
     */
    public void writeTo(OutputStream out, int from, int count) throws IOException {
        Objects.checkFromIndexSize(from, count, length);
        out.write(bytes, offset + from, count);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredBytes b && Arrays.equals(bytes, offset, offset + length, b.bytes, b.offset,
                b.offset + b.length);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = offset; i < offset + length; i++) {
            h = 31 * h + bytes[i];
        }
        return h;
    }

    @Override
    public String toString() {
        return "StoredBytes[" + length + " bytes]";
    }
}
