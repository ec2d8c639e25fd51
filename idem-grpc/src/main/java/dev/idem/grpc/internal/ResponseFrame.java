package dev.idem.grpc.internal;

import io.grpc.Metadata;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * What a unary call answered, as the store keeps it: the response headers (if any were sent),
 * the serialized response message (if any), the status code and description, and the trailers,
 * every metadata entry (ASCII and binary) in the order the handler gave them, less the entries
 * this module adds itself. Not API.
 *
 * <p>Layout (big-endian): the magic {@code "IG"} and a version byte (1); a flag and, if set, the
 * headers; the message length ({@code -1} for none) and bytes; the status code; a flag and, if
 * set, the description (length-prefixed UTF-8); the trailers. Metadata: an entry count, then per
 * value its name (length-prefixed ASCII), a binary flag and the value (length-prefixed bytes).
 */
public record ResponseFrame(Metadata headers, byte[] message, Status status, Metadata trailers) {
    private static final int VERSION = 1;

    /**
     * Encodes the frame; entries named in {@code skipped} are left out.
     *
     * @param skipped lower-case names of entries never stored (this module's own)
     */
    public byte[] encode(Set<String> skipped) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (message == null ? 0 : message.length));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte('I');
            out.writeByte('G');
            out.writeByte(VERSION);
            out.writeBoolean(headers != null);
            if (headers != null) {
                writeMetadata(out, headers, skipped);
            }
            out.writeInt(message == null ? -1 : message.length);
            if (message != null) {
                out.write(message);
            }
            out.writeInt(status.getCode().value());
            String description = status.getDescription();
            out.writeBoolean(description != null);
            if (description != null) {
                writeBytes(out, description.getBytes(StandardCharsets.UTF_8));
            }
            writeMetadata(out, trailers, skipped);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * Decodes a stored frame.
     *
     * @throws IllegalArgumentException if the bytes are not a frame this version wrote
     */
    public static ResponseFrame decode(byte[] frame) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(frame))) {
            if (in.readByte() != 'I' || in.readByte() != 'G' || in.readByte() != VERSION) {
                throw new IllegalArgumentException("not a stored gRPC response (version " + VERSION + ")");
            }
            Metadata headers = in.readBoolean() ? readMetadata(in) : null;
            int length = in.readInt();
            byte[] message = length < 0 ? null : in.readNBytes(length);
            if (message != null && message.length != length) {
                throw new IllegalArgumentException("a stored gRPC response ends inside its message");
            }
            Status status = Status.fromCodeValue(in.readInt());
            if (in.readBoolean()) {
                status = status.withDescription(new String(readBytes(in), StandardCharsets.UTF_8));
            }
            Metadata trailers = readMetadata(in);
            return new ResponseFrame(headers, message, status, trailers);
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored gRPC response is truncated", e);
        }
    }

    private static void writeMetadata(DataOutputStream out, Metadata metadata, Set<String> skipped)
            throws IOException {
        ByteArrayOutputStream entries = new ByteArrayOutputStream();
        int count = 0;
        try (DataOutputStream e = new DataOutputStream(entries)) {
            for (String name : metadata.keys()) {
                if (skipped.contains(name)) {
                    continue;
                }
                byte[] encodedName = name.getBytes(StandardCharsets.US_ASCII);
                boolean binary = name.endsWith(Metadata.BINARY_HEADER_SUFFIX);
                Iterable<byte[]> values = binary
                        ? metadata.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))
                        : asciiValues(metadata, name);
                if (values == null) {
                    continue;
                }
                for (byte[] value : values) {
                    writeBytes(e, encodedName);
                    e.writeBoolean(binary);
                    writeBytes(e, value);
                    count++;
                }
            }
        }
        out.writeInt(count);
        entries.writeTo(out);
    }

    private static Iterable<byte[]> asciiValues(Metadata metadata, String name) {
        Iterable<String> values = metadata.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
        if (values == null) {
            return null;
        }
        java.util.List<byte[]> out = new java.util.ArrayList<>();
        for (String v : values) {
            out.add(v.getBytes(StandardCharsets.US_ASCII));
        }
        return out;
    }

    private static Metadata readMetadata(DataInputStream in) throws IOException {
        int count = in.readInt();
        Metadata metadata = new Metadata();
        for (int i = 0; i < count; i++) {
            String name = new String(readBytes(in), StandardCharsets.US_ASCII);
            boolean binary = in.readBoolean();
            byte[] value = readBytes(in);
            if (binary) {
                metadata.put(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER), value);
            } else {
                metadata.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER),
                        new String(value, StandardCharsets.US_ASCII));
            }
        }
        return metadata;
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("negative length");
        }
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("truncated");
        }
        return b;
    }
}
