package dev.idem.http;

import dev.idem.http.internal.CappedBuffer;
import dev.idem.http.internal.StoredResponse;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A whole HTTP response held in memory: status, headers (names as the handler spelled them,
 * values in order) and body. It is what {@link IdempotencyFlow} asks a server adapter to capture
 * from the handler, and what it hands back to be sent: the handler's own response, a replay, or
 * a problem. Immutable; the body is copied in and out.
 */
public final class BufferedResponse {
    private final StoredResponse response;

    /**
     * A response; copies its arguments.
     *
     * @param status the status code, three digits
     * @param headers the headers, in order; each name once, with its values
     * @param body the body, possibly empty
     * @throws IllegalArgumentException if the status is not three digits
     */
    public BufferedResponse(int status, Map<String, List<String>> headers, byte[] body) {
        this(new StoredResponse(status, Objects.requireNonNull(headers, "headers"), Objects.requireNonNull(body, "body")));
    }

    BufferedResponse(StoredResponse response) {
        this.response = response;
    }

    StoredResponse stored() {
        return response;
    }

    /**
     * A buffer for a handler's response body that keeps at most {@code cap} bytes and counts the
     * rest: pass {@link IdempotencyFlow.Exchange#proceed}'s {@code maxResponseBytes}, so no
     * more is held than the store could keep, and an oversize response is still seen as oversize
     * (it is answered {@code 500 outcome-not-stored}).
     *
     * @param cap the most bytes kept; positive
     * @return an empty buffer
     * @throws IllegalArgumentException if {@code cap} is not positive
     */
    public static ByteArrayOutputStream bodyBuffer(int cap) {
        return new CappedBuffer(cap);
    }

    /**
     * The status code.
     *
     * @return the status code
     */
    public int status() {
        return response.status();
    }

    /**
     * The headers, in order; unmodifiable.
     *
     * @return the headers
     */
    public Map<String, List<String>> headers() {
        return response.headers();
    }

    /**
     * A copy of the body.
     *
     * @return the body
     */
    public byte[] body() {
        return response.body();
    }

    /**
     * The body's length in bytes, without copying it.
     *
     * @return the length
     */
    public int bodyLength() {
        return response.bodyLength();
    }

    /**
     * The body as a read-only buffer over it, not copied: a replay's body is a view of the stored
     * outcome, which a server can write out as it is.
     *
     * @return a read-only buffer positioned at the body's start
     */
    public ByteBuffer bodyBuffer() {
        return response.bodyBuffer();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BufferedResponse r && r.response.equals(response);
    }

    @Override
    public int hashCode() {
        return response.hashCode();
    }

    @Override
    public String toString() {
        return "BufferedResponse[" + response.status() + ", " + response.headers().keySet() + ", "
                + response.bodyLength() + " bytes]";
    }
}
