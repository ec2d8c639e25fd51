package dev.idem.jaxrs;

import dev.idem.http.HttpIdempotency;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Providers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * The Idempotency-Key contract as a Jakarta REST request and response filter, for runtimes whose
 * filters may block (Jersey, RESTEasy): register it (or {@link IdempotencyFeature}, which adds
 * {@link IdempotencyExceptionMapper} too) and every request its configuration covers runs its
 * handler at most once per key, with the statuses and replays of idem-http's servlet filter
 * ({@link JaxrsIdempotency} says how). The request filter waits for the key's claim, the response
 * filter for the outcome's storage; neither waits on the handler.
 *
 * <p>It runs at {@link #PRIORITY}, after authentication and authorization, so the
 * {@code SecurityContext}'s principal is known and scopes the key; a response filter of a
 * higher priority number runs before it and its headers are part of the stored response. Pick
 * routes with {@link JaxrsRoutes} ({@code routes(JaxrsRoutes.annotated())} for {@link Idempotent}
 * methods). Thread-safe; one instance serves the whole application.
 */
@Priority(IdempotencyFilter.PRIORITY)
public final class IdempotencyFilter implements ContainerRequestFilter, ContainerResponseFilter {
    /** After authentication (1000) and authorization (2000), before the application's own filters (5000). */
    public static final int PRIORITY = Priorities.AUTHORIZATION + 100;

    private final JaxrsIdempotency idempotency;

    @Context
    private ResourceInfo resourceInfo;

    @Context
    private Providers providers;

    /**
     * A filter applying {@code config}, then each of {@code more} in order to requests the
     * earlier ones do not cover.
     *
     * @param config the HTTP contract's configuration
     * @param more further configurations, for other routes
     */
    public IdempotencyFilter(HttpIdempotency config, HttpIdempotency... more) {
        List<HttpIdempotency> all = new ArrayList<>();
        all.add(Objects.requireNonNull(config, "config"));
        all.addAll(List.of(more));
        this.idempotency = new JaxrsIdempotency(all, RequestBodyReader.blocking());
    }

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        Optional<Response> answer = await(request, idempotency.filterRequest(request, resourceInfo));
        if (answer.isPresent()) {
            request.abortWith(answer.get());
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
        await(request, idempotency.filterResponse(request, response, providers, null));
    }

    private <T> T await(ContainerRequestContext request, CompletionStage<T> stage) throws IOException {
        try {
            return stage.toCompletableFuture().get();
        } catch (InterruptedException e) {
            idempotency.abandon(request);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the idempotency store was answering");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error r) {
                throw r;
            }
            if (cause instanceof IOException r) {
                throw r;
            }
            throw new IOException(cause);
        }
    }
}
