package dev.idem.grpc.internal;

import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.SecurityLevel;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link ServerCall} a covered unary method's handler answers on: it records the headers,
 * the response message, the status and the trailers instead of sending them, so that the answer
 * can be stored before the client sees it. Everything else (method, attributes, authority,
 * security level) is the real call's. The message is handed to the handler by the interceptor,
 * so {@link #request} asks the transport for nothing. Not API.
 *
 * <p>{@link #isCancelled()} is false: the handler of an idempotent call runs to its answer even
 * if the client has gone (that answer is stored for the retry); it still sees the call's
 * {@code io.grpc.Context} being cancelled.
 */
public final class CapturingCall<ReqT, RespT> extends ServerCall<ReqT, RespT> {
    private final ServerCall<ReqT, RespT> real;
    private final CompletableFuture<Captured<RespT>> closed = new CompletableFuture<>();
    private Metadata headers;
    private RespT message;
    private String compression;
    private boolean messageCompression = true;

    /** A capture of what is answered on {@code real}. */
    public CapturingCall(ServerCall<ReqT, RespT> real) {
        this.real = real;
    }

    /** The handler's answer, as it closed the call. */
    public record Captured<RespT>(Metadata headers, RespT message, Status status, Metadata trailers,
            String compression, boolean messageCompression) {
    }

    /** Completes when the handler closes the call. */
    public CompletableFuture<Captured<RespT>> closed() {
        return closed;
    }

    @Override
    public void request(int numMessages) {
        // The single request message is delivered by the interceptor.
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
        if (this.headers != null) {
            throw new IllegalStateException("sendHeaders has already been called");
        }
        this.headers = headers;
    }

    @Override
    public synchronized void sendMessage(RespT message) {
        if (this.message != null) {
            throw new IllegalStateException("a unary method must send one response message, not more");
        }
        if (closed.isDone()) {
            throw new IllegalStateException("the call is already closed");
        }
        this.message = message;
    }

    @Override
    public void close(Status status, Metadata trailers) {
        Captured<RespT> captured;
        synchronized (this) {
            if (closed.isDone()) {
                throw new IllegalStateException("the call is already closed");
            }
            captured = new Captured<>(headers, message, status, trailers == null ? new Metadata() : trailers,
                    compression, messageCompression);
        }
        closed.complete(captured);
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean isReady() {
        return true;
    }

    @Override
    public synchronized void setMessageCompression(boolean enabled) {
        this.messageCompression = enabled;
    }

    @Override
    public synchronized void setCompression(String compressor) {
        this.compression = compressor;
    }

    @Override
    public SecurityLevel getSecurityLevel() {
        return real.getSecurityLevel();
    }

    @Override
    public Attributes getAttributes() {
        return real.getAttributes();
    }

    @Override
    public String getAuthority() {
        return real.getAuthority();
    }

    @Override
    public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
        return real.getMethodDescriptor();
    }
}
