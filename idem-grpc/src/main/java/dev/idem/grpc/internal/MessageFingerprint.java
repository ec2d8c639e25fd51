package dev.idem.grpc.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.idem.engine.CanonicalJson;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The request fingerprint of a unary call: the SHA-256 over a domain tag, the full method name and
 * the request message in a form that does not depend on how the client encoded it. A protobuf
 * message is fingerprinted as the RFC 8785 canonical form of its proto3 JSON mapping, printed by
 * {@link JsonFormat} with fixed options: field names as written in the .proto file, enums as their
 * numbers, fields without presence at their default left out, unknown fields left out. So two
 * clients that encode the same message differently on the wire (field order, packed or expanded
 * repeated scalars, a default value sent or not, map entry order, a protobuf version or language
 * of their own) give one fingerprint. Any other message is fingerprinted by the bytes its
 * marshaller writes. Not API.
 */
public final class MessageFingerprint {
    private static final byte[] DOMAIN = "idem-grpc/v1\0".getBytes(StandardCharsets.US_ASCII);

    private final JsonFormat.Printer printer;
    private final List<String> excluded;

    /** A fingerprint that resolves {@code Any} fields with {@code registry} and leaves out {@code excluded}. */
    public MessageFingerprint(JsonFormat.TypeRegistry registry, List<String> excluded) {
        this.printer = JsonFormat.printer().usingTypeRegistry(registry).preservingProtoFieldNames()
                .printingEnumsAsInts().omittingInsignificantWhitespace();
        this.excluded = List.copyOf(excluded);
    }

    /** Thrown when a message cannot be put in its fingerprint form. */
    public static final class UnprintableMessageException extends Exception {
        private static final long serialVersionUID = 1L;

        UnprintableMessageException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The canonical form of {@code request}: canonical JSON for a protobuf message, else its marshalled bytes. */
    public <ReqT> byte[] canonicalForm(MethodDescriptor<ReqT, ?> method, ReqT request)
            throws UnprintableMessageException {
        if (request instanceof MessageOrBuilder message) {
            String json;
            try {
                json = printer.print(message);
            } catch (InvalidProtocolBufferException e) {
                throw new UnprintableMessageException("the request of " + method.getFullMethodName()
                        + " cannot be printed as JSON for its fingerprint (an Any of a type the registry lacks?): "
                        + e.getMessage(), e);
            }
            return CanonicalJson.canonicalize(json.getBytes(StandardCharsets.UTF_8), excluded);
        }
        try (InputStream in = method.streamRequest(request)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UnprintableMessageException("the request of " + method.getFullMethodName()
                    + " cannot be marshalled for its fingerprint", e);
        }
    }

    /** The fingerprint the engine is given: 32 bytes, length-prefixed fields, so no two calls share material. */
    public <ReqT> byte[] digest(MethodDescriptor<ReqT, ?> method, ReqT request) throws UnprintableMessageException {
        boolean proto = request instanceof MessageOrBuilder;
        byte[] form = canonicalForm(method, request);
        ByteArrayOutputStream out = new ByteArrayOutputStream(form.length + 96);
        out.writeBytes(DOMAIN);
        field(out, method.getFullMethodName().getBytes(StandardCharsets.UTF_8));
        out.write(proto ? 'J' : 'B');
        field(out, form);
        return Digests.sha256().digest(out.toByteArray());
    }

    private static void field(ByteArrayOutputStream out, byte[] bytes) {
        int n = bytes.length;
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
        out.writeBytes(bytes);
    }
}
