package dev.idem.jaxrs;

import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotencyFlow;
import dev.idem.jaxrs.internal.HandlerFailure;
import dev.idem.jaxrs.internal.JaxrsExchange;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Providers;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The Idempotency-Key contract over Jakarta REST's two filter phases, as stages: the core that
 * {@link IdempotencyFilter} runs blocking, and that a non-blocking runtime's integration (idem's
 * Quarkus extension) runs without blocking. It is idem-http's one request flow
 * ({@link IdempotencyFlow}), so the statuses, problem types, keys, fingerprints and replays are
 * those of the servlet filter.
 *
 * <p>Jakarta REST has no filter around the handler: {@link #filterRequest} decides the request
 * (pass it through, answer it with a problem or a replay, or let the handler run under a claimed
 * key, with the body read and handed back from memory), and {@link #filterResponse} hands the
 * handler's response, or its failure, to the engine and writes the answer into the response:
 * the response as the handler made it (with {@code Idempotency-Status: stored} when stored), or a
 * problem if it could not be stored. The handler finds the running
 * {@link dev.idem.engine.ExecutionContext} in the request property
 * {@link HttpIdempotency#CONTEXT_ATTRIBUTE}.
 *
 * <p>Several configurations may share one core: the first whose routes cover a request takes
 * it. What the handler threw reaches the engine (and its failure classifier) only when the
 * integration passes it to {@link #filterResponse}, reports it through {@link #handlerFailed},
 * or maps it with {@link IdempotencyExceptionMapper}; a {@link WebApplicationException} or an
 * exception the application maps is the handler's answer.
 * Thread-safe.
 */
public final class JaxrsIdempotency {
    private static final System.Logger LOG = System.getLogger(JaxrsIdempotency.class.getName());

    private final List<IdempotencyFlow> flows;
    private final RequestBodyReader reader;

    /**
     * A core for {@code configs}, tried in order, reading bodies with {@code reader}.
     *
     * @param configs the configurations; at least one
     * @param reader how a covered request's body is read
     * @throws IllegalArgumentException if {@code configs} is empty
     */
    public JaxrsIdempotency(List<HttpIdempotency> configs, RequestBodyReader reader) {
        Objects.requireNonNull(configs, "configs");
        if (configs.isEmpty()) {
            throw new IllegalArgumentException("at least one HttpIdempotency configuration is needed");
        }
        List<IdempotencyFlow> list = new ArrayList<>();
        configs.forEach(c -> list.add(IdempotencyFlow.of(c)));
        this.flows = List.copyOf(list);
        this.reader = Objects.requireNonNull(reader, "reader");
    }

    /**
     * A core for {@code config} that reads bodies on the filter's thread.
     *
     * @param config the configuration
     * @return the core
     */
    public static JaxrsIdempotency of(HttpIdempotency config) {
        return new JaxrsIdempotency(List.of(config), RequestBodyReader.blocking());
    }

    /**
     * The request phase. Completes with empty to let the request go on (not covered, or covered
     * and its handler may now run) or with the response to abort it with (a problem or a
     * replay). A request another core already took is left alone.
     *
     * @param request the request, after resource matching
     * @param resource the matched resource method (for {@link JaxrsRoutes}), or null
     * @return the decision
     */
    public CompletionStage<Optional<Response>> filterRequest(ContainerRequestContext request, ResourceInfo resource) {
        CompletableFuture<Optional<Response>> outcome = new CompletableFuture<>();
        if (JaxrsExchange.taken(request)) {
            outcome.complete(Optional.empty());
        } else {
            start(0, request, resource, outcome);
        }
        return outcome;
    }

    private void start(int index, ContainerRequestContext request, ResourceInfo resource,
            CompletableFuture<Optional<Response>> outcome) {
        if (index == flows.size()) {
            outcome.complete(Optional.empty());
            return;
        }
        JaxrsExchange exchange = new JaxrsExchange(this, request, resource, reader, outcome,
                () -> start(index + 1, request, resource, outcome));
        try {
            flows.get(index).handle(exchange).whenComplete((done, e) -> {
                if (e != null) {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    if (!(cause instanceof CancellationException)) {
                        // A cancellation is the filter giving up on its own request: nothing to report.
                        LOG.log(System.Logger.Level.WARNING, "an idempotent request failed outside its handler", e);
                    }
                    exchange.flowFailed(cause);
                }
            });
        } catch (RuntimeException e) {
            exchange.flowFailed(e);
        }
    }

    /**
     * The response phase. If this core let the request's handler run, hands its outcome to the
     * engine (the failure, if {@code thrown} or {@link #handlerFailed} names one; else the
     * response, its entity written with {@code providers}) and completes once {@code response}
     * holds the answer. Otherwise completes at once and changes nothing.
     *
     * @param request the request
     * @param response the handler's response
     * @param providers the application's providers, to write the entity as the runtime would
     * @param thrown what the handler threw, when the runtime tells and no application mapper
     *     mapped it; else null
     * @return a stage that completes once the response is final
     */
    public CompletionStage<Void> filterResponse(ContainerRequestContext request, ContainerResponseContext response,
            Providers providers, Throwable thrown) {
        Throwable failure = thrown;
        if (failure == null && response.getEntity() instanceof HandlerFailure carried) {
            failure = carried.cause();
        }
        Optional<JaxrsExchange> mine = JaxrsExchange.of(request, this).filter(JaxrsExchange::running);
        if (mine.isPresent()) {
            return mine.get().finish(response, providers, failure);
        }
        if (failure != null && response.getEntity() instanceof HandlerFailure
                && JaxrsExchange.of(request, null).filter(JaxrsExchange::running).isEmpty()) {
            // Not a covered request: answer as the runtime's default mapper would.
            LOG.log(System.Logger.Level.WARNING, "a request failed; answering 500", failure);
            response.setEntity(null);
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Reports that the running handler of {@code request} threw {@code failure}, for an exception
     * mapper that sees exceptions no other mapper took: the response filter then hands the
     * failure to the engine instead of the mapped response. A {@link WebApplicationException} is
     * the handler's answer and is never reported.
     *
     * @param request the request
     * @param failure what the handler threw
     * @return whether a covered handler of the request was running (the mapper's response will
     *     be replaced by the flow's answer)
     */
    public static boolean handlerFailed(ContainerRequestContext request, Throwable failure) {
        if (failure instanceof WebApplicationException) {
            return false;
        }
        return JaxrsExchange.of(request, null).map(e -> e.handlerThrew(failure)).orElse(false);
    }

    /**
     * Whether a covered handler of {@code request} is running (its response phase has not begun),
     * for an integration that prepares the response before {@link #filterResponse} captures it.
     *
     * @param request the request
     * @return whether a core let its handler run and waits for its response
     */
    public static boolean handlerRunning(ContainerRequestContext request) {
        return JaxrsExchange.of(request, null).filter(JaxrsExchange::running).isPresent();
    }

    /**
     * The caller stopped waiting for {@code request} (its thread was interrupted), or the server
     * dropped its response (the client left): a handler not yet started never runs (the key is
     * released); a running or finished one's response is dropped
     * ({@link dev.idem.http.IdempotencyFlow.ResponseDropped}), so the key stays claimed until its
     * lease lapses (its effect may have happened).
     *
     * @param request the request
     */
    public void abandon(ContainerRequestContext request) {
        JaxrsExchange.of(request, this).ifPresent(JaxrsExchange::abandon);
    }
}
