package dev.idem.http.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyException;
import dev.idem.engine.StoredBytes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A final response as the handler produced it: status, headers (names as the handler spelled
 * them, values in order) and body bytes. Immutable. Not API.
 *
 * <p>The engine stores it as {@link StoredBytes} in a small binary frame ({@link #toStored()}):
 * a version byte, the status, the headers as length-prefixed UTF-8, then the body as it is. A
 * replay reads the status and headers from the frame and writes the body straight from the
 * stored bytes ({@link #fromStored}): nothing is decoded from JSON or Base64 and the body is
 * never copied. Records stored by earlier versions hold the response as JSON (body in Base64);
 * they are still read, by Jackson, until they expire.
 */
public final class StoredResponse {
    private static final byte FRAME_V1 = 1;
    private static final ObjectMapper LEGACY = new ObjectMapper();

    private final int status;
    private final Map<String, List<String>> headers;
    // The body is body[bodyStart, end): a replay's is the tail of the stored frame itself.
    private final StoredBytes body;
    private final int bodyStart;
    // The frame this response was read from, or null for one the handler produced.
    private final StoredBytes frame;

    /** Creates a response; copies its arguments. */
    @JsonCreator
    public StoredResponse(@JsonProperty("status") int status,
            @JsonProperty("headers") Map<String, List<String>> headers,
            @JsonProperty("body") byte[] body) {
        this(status, copy(headers), StoredBytes.of(body == null ? new byte[0] : body), 0, null);
    }

    private StoredResponse(int status, Map<String, List<String>> headers, StoredBytes body, int bodyStart,
            StoredBytes frame) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a three-digit code but was " + status);
        }
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.bodyStart = bodyStart;
        this.frame = frame;
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> headers) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        if (headers != null) {
            headers.forEach((name, values) -> copy.put(Objects.requireNonNull(name, "header name"),
                    List.copyOf(values)));
        }
        return Collections.unmodifiableMap(copy);
    }

    /** The status code. */
    @JsonProperty("status")
    public int status() {
        return status;
    }

    /** The headers, in the order the handler set them. */
    @JsonProperty("headers")
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** A copy of the body. */
    @JsonProperty("body")
    public byte[] body() {
        byte[] copy = new byte[bodyLength()];
        bodyBuffer().get(copy);
        return copy;
    }

    /** The length of the body in bytes. */
    public int bodyLength() {
        return body.length() - bodyStart;
    }

    /** Writes the body to {@code out}, without copying it. */
    public void writeBody(OutputStream out) throws IOException {
        body.writeTo(out, bodyStart, bodyLength());
    }

    /** The body as a read-only buffer over it (no copy). */
    public ByteBuffer bodyBuffer() {
        return body.asReadOnlyBuffer().position(bodyStart).slice();
    }

    /** This response with only the headers whose lower-case names are in {@code names}. */
    public StoredResponse withHeadersOnly(Set<String> names) {
        Map<String, List<String>> kept = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (names.contains(name.toLowerCase(Locale.ROOT))) {
                kept.put(name, values);
            }
        });
        return new StoredResponse(status, Collections.unmodifiableMap(kept), body, bodyStart, null);
    }

    /**
     * What the engine stores: the frame described in the class comment. A response read from the
     * store gives back the very bytes it was read from.
     */
    public StoredBytes toStored() {
        if (frame != null) {
            return frame;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + bodyLength());
        out.write(FRAME_V1);
        writeShort(out, status);
        writeInt(out, headers.size());
        headers.forEach((name, values) -> {
            writeString(out, name);
            writeInt(out, values.size());
            values.forEach(value -> writeString(out, value));
        });
        try {
            writeBody(out);
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return StoredBytes.wrap(out.toByteArray());
    }

    /**
     * The response a replay sends: status and headers read from the stored frame, the body a view
     * of it. An outcome stored as JSON by an earlier version is decoded with Jackson.
     *
     * @throws IdempotencyException if the stored bytes are neither
     */
    public static StoredResponse fromStored(StoredBytes stored) {
        if (stored.length() > 0 && stored.byteAt(0) == '{') {
            return legacy(stored);
        }
        if (stored.length() < 7 || stored.byteAt(0) != FRAME_V1) {
            throw new IdempotencyException("the stored response is in no format this version reads (first byte "
                    + (stored.length() == 0 ? "missing" : Integer.toString(stored.byteAt(0) & 0xFF)) + ")");
        }
        ByteBuffer in = stored.asReadOnlyBuffer();
        try {
            in.get();
            int status = in.getShort() & 0xFFFF;
            int names = in.getInt();
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 0; i < names; i++) {
                String name = readString(in);
                int count = in.getInt();
                List<String> values = new ArrayList<>(Math.min(Math.max(count, 0), 16));
                for (int j = 0; j < count; j++) {
                    values.add(readString(in));
                }
                headers.put(name, Collections.unmodifiableList(values));
            }
            return new StoredResponse(status, Collections.unmodifiableMap(headers), stored, in.position(), stored);
        } catch (RuntimeException e) {
            throw new IdempotencyException("the stored response frame is damaged", e);
        }
    }

    private static StoredResponse legacy(StoredBytes stored) {
        try {
            return LEGACY.readValue(stored.toByteArray(), StoredResponse.class);
        } catch (IOException e) {
            throw new IdempotencyException("the stored response cannot be read", e);
        }
    }

    private static void writeShort(ByteArrayOutputStream out, int v) {
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeInt(out, b.length);
        out.write(b, 0, b.length);
    }

    private static String readString(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalStateException("a header of " + n + " bytes in a frame with " + in.remaining() + " left");
        }
        byte[] text = new byte[n];
        in.get(text);
        return new String(text, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse r && r.status == status && r.headers.equals(headers)
                && r.bodyBuffer().equals(bodyBuffer());
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, headers) * 31 + bodyBuffer().hashCode();
    }

    @Override
    public String toString() {
        return "StoredResponse[" + status + ", " + headers.keySet() + ", " + bodyLength() + " bytes]";
    }
}
