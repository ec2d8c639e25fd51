package dev.idem.quarkus.runtime;

import dev.idem.jaxrs.RequestBodyReader;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerHttpRequest;

/**
 * Reads a covered request's body in Quarkus REST without blocking the event loop its filters may
 * run on: chunk by chunk from the server as they arrive, the way Quarkus REST reads bodies for its
 * own non-blocking endpoints, at most {@code limit + 1} bytes (then input is paused: the request is
 * refused with 413 and its connection closed). A body another filter already read is taken from
 * memory. Wired by the extension; not for applications.
 */
public final class RestBodyReader implements RequestBodyReader {
    /** The reader. */
    public RestBodyReader() {
    }

    @Override
    public CompletionStage<byte[]> read(ContainerRequestContext request, int limit) {
        ResteasyReactiveRequestContext context = context(request);
        if (context.hasInputStream()) {
            try (InputStream in = context.getInputStream()) {
                return CompletableFuture.completedFuture(in.readNBytes(limit + 1));
            } catch (IOException e) {
                return CompletableFuture.failedFuture(new UncheckedIOException("cannot read the request body", e));
            }
        }
        CompletableFuture<byte[]> body = new CompletableFuture<>();
        ServerHttpRequest server = context.serverRequest();
        Chunks chunks = new Chunks(server, limit + 1, body);
        if (server.isRequestEnded()) {
            server.resumeRequestInput();
            chunks.done();
        } else {
            server.setReadListener(chunks);
            server.resumeRequestInput();
        }
        return body;
    }

    static ResteasyReactiveRequestContext context(ContainerRequestContext request) {
        return (ResteasyReactiveRequestContext) ((ResteasyReactiveContainerRequestContext) request)
                .getServerRequestContext();
    }

    /** Collects chunks up to a cap; completes once the body ended or the cap is reached. */
    private static final class Chunks implements ServerHttpRequest.ReadCallback {
        private final ServerHttpRequest server;
        private final int cap;
        private final CompletableFuture<byte[]> body;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Chunks(ServerHttpRequest server, int cap, CompletableFuture<byte[]> body) {
            this.server = server;
            this.cap = cap;
            this.body = body;
        }

        @Override
        public synchronized void data(ByteBuffer data) {
            if (body.isDone()) {
                return;
            }
            int n = Math.min(data.remaining(), cap - bytes.size());
            byte[] chunk = new byte[n];
            data.get(chunk);
            bytes.write(chunk, 0, n);
            if (bytes.size() >= cap) {
                server.pauseRequestInput();
                body.complete(bytes.toByteArray());
            }
        }

        @Override
        public synchronized void done() {
            body.complete(bytes.toByteArray());
        }
    }
}
