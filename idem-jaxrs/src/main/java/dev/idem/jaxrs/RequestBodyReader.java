package dev.idem.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Reads a covered request's body before the handler runs, so it can be fingerprinted (and is
 * then handed to the handler from memory). The default, {@link #blocking()}, reads the entity
 * stream on the filter's thread; a non-blocking runtime whose filters may run on an event loop
 * (Quarkus REST) supplies one that reads without blocking it.
 */
@FunctionalInterface
public interface RequestBodyReader {
    /**
     * Reads at most {@code limit + 1} bytes of the body, so that an oversize body is seen.
     *
     * @param request the request, before its handler
     * @param limit the largest body accepted
     * @return a stage with the bytes read (empty for no body)
     */
    CompletionStage<byte[]> read(ContainerRequestContext request, int limit);

    /**
     * Reads the entity stream on the calling thread (Jersey, RESTEasy, any runtime whose
     * request filters may block).
     *
     * @return the reader
     */
    static RequestBodyReader blocking() {
        return (request, limit) -> {
            InputStream in = request.getEntityStream();
            if (in == null) {
                return CompletableFuture.completedFuture(new byte[0]);
            }
            try {
                return CompletableFuture.completedFuture(in.readNBytes(limit + 1));
            } catch (IOException e) {
                return CompletableFuture.failedFuture(new UncheckedIOException("cannot read the request body", e));
            }
        };
    }
}
