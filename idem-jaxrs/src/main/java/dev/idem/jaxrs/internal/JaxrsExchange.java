package dev.idem.jaxrs.internal;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.BufferedResponse;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotencyFlow;
import dev.idem.http.IncomingRequest;
import dev.idem.jaxrs.RequestBodyReader;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Providers;
import java.io.ByteArrayInputStream;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One Jakarta REST request as the shared flow sees it. Jakarta REST has no filter around the
 * handler, only one before it and one after, so the flow's calls are split over the two: the
 * request filter waits for {@link #outcome} (go on to the handler, or abort with a response); the
 * flow's {@link #proceed} stage is completed by the response filter with the handler's captured
 * response ({@link #finish}); the flow's answer then comes back as {@link #reply}, which the
 * response filter writes into the response. The flow calls this exchange from the engine's
 * threads while the request's own thread waits (or the request is suspended), so the request
 * context is never touched by two threads at once. Not API.
 */
public final class JaxrsExchange implements IdempotencyFlow.Exchange, IncomingRequest {
    /** The request property holding the exchange of the configuration that took the request. */
    public static final String PROPERTY = "dev.idem.jaxrs.exchange";

    /** Where a request stands. */
    enum Phase {
        /** The flow is deciding. */
        ADMISSION,
        /** Not covered by this configuration. */
        PASSED,
        /** Answered before the handler (a problem or a replay). */
        ANSWERED,
        /** The handler runs. */
        HANDLER,
        /** The handler's response is being stored and sent. */
        RESPONSE,
        /** The filter stopped waiting; nothing may start any more. */
        ABANDONED
    }

    /** The flow's answer after the handler: what the client gets, and the headers to add. */
    record Reply(BufferedResponse response, Map<String, String> extraHeaders) {
    }

    private final Object owner;
    private final ContainerRequestContext request;
    private final ResourceInfo resource;
    private final RequestBodyReader reader;
    private final Runnable next;
    private final CompletableFuture<Optional<Response>> outcome;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.ADMISSION);
    private final CompletableFuture<BufferedResponse> handler = new CompletableFuture<>();
    private final CompletableFuture<Reply> reply = new CompletableFuture<>();
    private volatile int responseCap;
    private volatile Throwable failure;

    /**
     * An exchange of {@code owner}'s configuration for {@code request}.
     *
     * @param owner the filter core this exchange belongs to
     * @param request the request
     * @param resource the matched resource method, if known
     * @param reader how the body is read
     * @param outcome completed with empty (go on) or with the response to abort with
     * @param next what runs when this configuration does not cover the request
     */
    public JaxrsExchange(Object owner, ContainerRequestContext request, ResourceInfo resource, RequestBodyReader reader,
            CompletableFuture<Optional<Response>> outcome, Runnable next) {
        this.owner = owner;
        this.request = request;
        this.resource = resource;
        this.reader = reader;
        this.outcome = outcome;
        this.next = next;
        request.setProperty(PROPERTY, this);
    }

    /**
     * The exchange that took {@code request}, if it is {@code owner}'s.
     *
     * @param request the request
     * @param owner the filter core
     * @return the exchange, if any
     */
    public static Optional<JaxrsExchange> of(ContainerRequestContext request, Object owner) {
        Object p = request.getProperty(PROPERTY);
        return p instanceof JaxrsExchange e && (owner == null || e.owner == owner) ? Optional.of(e) : Optional.empty();
    }

    /**
     * Whether a configuration has taken {@code request} (answered it or runs its handler), so no
     * other may.
     *
     * @param request the request
     * @return whether it is taken
     */
    public static boolean taken(ContainerRequestContext request) {
        return of(request, null).filter(e -> e.phase.get() != Phase.PASSED).isPresent();
    }

    // ---- the flow's side

    @Override
    public IncomingRequest request() {
        return this;
    }

    @Override
    public CompletionStage<byte[]> readBody(int limit) {
        return reader.read(request, limit);
    }

    @Override
    public CompletionStage<Void> passThrough() {
        if (phase.compareAndSet(Phase.ADMISSION, Phase.PASSED)) {
            next.run();
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<BufferedResponse> proceed(byte[] body, ExecutionContext context, int maxResponseBytes) {
        if (!phase.compareAndSet(Phase.ADMISSION, Phase.HANDLER)) {
            // The filter gave up waiting and nothing ran: a plain (transient) failure, so the engine
            // releases the key at once. (ResponseDropped would keep it until the lease lapses.)
            return CompletableFuture.failedFuture(new IllegalStateException("the request was abandoned before its handler"));
        }
        responseCap = maxResponseBytes;
        request.setEntityStream(new ByteArrayInputStream(body));
        request.setProperty(HttpIdempotency.CONTEXT_ATTRIBUTE, context);
        outcome.complete(Optional.empty());
        return handler;
    }

    @Override
    public CompletionStage<Void> send(BufferedResponse response, Map<String, String> extraHeaders) {
        if (phase.compareAndSet(Phase.ADMISSION, Phase.ANSWERED)) {
            outcome.complete(Optional.of(Responses.toResponse(response, extraHeaders)));
        } else {
            reply.complete(new Reply(response, extraHeaders));
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The flow failed outside the handler (reading the body, say): nobody may wait forever.
     *
     * @param e the failure
     */
    public void flowFailed(Throwable e) {
        outcome.completeExceptionally(e);
        reply.completeExceptionally(e);
    }

    /**
     * The filter stopped waiting (its thread was interrupted): a handler not yet started never will;
     * a running one's response is dropped ({@link IdempotencyFlow.ResponseDropped}: the flow keeps the
     * key claimed until its lease lapses, since its effect may still be under way).
     */
    public void abandon() {
        if (!phase.compareAndSet(Phase.ADMISSION, Phase.ABANDONED)
                && phase.compareAndSet(Phase.HANDLER, Phase.ABANDONED)) {
            handler.completeExceptionally(new IdempotencyFlow.ResponseDropped("the request was abandoned"));
        }
    }

    // ---- the filters' side

    /**
     * Whether the handler of this exchange runs (its response phase has not begun).
     *
     * @return whether it runs
     */
    public boolean running() {
        return phase.get() == Phase.HANDLER;
    }

    /**
     * Notes that the handler threw {@code e}, if it is running: the response filter then hands the
     * failure, not the mapped response, to the flow.
     *
     * @param e what the handler threw
     * @return whether the handler of this exchange was running
     */
    public boolean handlerThrew(Throwable e) {
        if (phase.get() != Phase.HANDLER) {
            return false;
        }
        failure = e;
        return true;
    }

    /**
     * In the response filter: hands the handler's outcome to the flow (its failure, else its
     * response as captured) and completes once the flow's answer is written into {@code response}.
     * Does nothing unless the handler of this exchange ran.
     *
     * @param response the response the handler produced
     * @param providers the application's providers, which write its entity
     * @param thrown what the handler threw, if the runtime says so; else what {@link #handlerThrew} noted
     * @return a stage that completes once {@code response} holds the answer
     */
    public CompletionStage<Void> finish(ContainerResponseContext response, Providers providers, Throwable thrown) {
        if (!phase.compareAndSet(Phase.HANDLER, Phase.RESPONSE)) {
            return CompletableFuture.completedFuture(null);
        }
        Throwable e = thrown != null ? thrown : failure;
        if (e != null) {
            handler.completeExceptionally(e);
        } else {
            try {
                handler.complete(Responses.capture(response, providers, resource, responseCap));
            } catch (Exception | LinkageError x) {
                handler.completeExceptionally(x);
            }
        }
        return reply.thenAccept(r -> Responses.apply(r, response));
    }

    // ---- the request as the resolvers see it

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String path() {
        String path = request.getUriInfo().getRequestUri().getRawPath();
        return path == null ? "" : path;
    }

    @Override
    public String query() {
        String query = request.getUriInfo().getRequestUri().getRawQuery();
        return query == null ? "" : query;
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? List.of() : List.copyOf(values);
    }

    @Override
    public Optional<String> authenticatedUser() {
        Principal principal = request.getSecurityContext() == null ? null
                : request.getSecurityContext().getUserPrincipal();
        return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName()).filter(n -> !n.isEmpty());
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type.isInstance(request)) {
            return Optional.of(type.cast(request));
        }
        return resource != null && type.isInstance(resource) ? Optional.of(type.cast(resource)) : Optional.empty();
    }
}
