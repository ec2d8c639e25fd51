package dev.idem.spring.webflux;

import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotencyFlow;
import java.security.Principal;
import java.util.Objects;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The Idempotency-Key contract of {@link dev.idem.http.IdempotencyServletFilter} as a Spring
 * WebFlux {@link WebFilter}: the same statuses and problem types (400, 401, 409, 413, 422, 503,
 * {@code application/problem+json}), the same {@code Idempotency-Status} and
 * {@code Idempotent-Replayed} headers, the stored response replayed byte for byte, the same keys
 * (principal, method and canonical path, client key) and fingerprints. It runs the handler
 * through {@link dev.idem.http.HandlerExecution#executeAsync}, so no thread waits on the handler
 * or on a duplicate; the handler sees the running {@code ExecutionContext} as the exchange
 * attribute {@link HttpIdempotency#CONTEXT_ATTRIBUTE}.
 *
 * <p>The caller is, as on the servlet side, Spring Security's authenticated user (read from
 * {@code ReactiveSecurityContextHolder}, so order this filter after Spring Security's WebFlux
 * chain), else the exchange's principal ({@code exchange.getPrincipal()}), unless anonymous; the
 * configuration's {@link dev.idem.http.PrincipalResolver} sees it as {@code authenticatedUser()}
 * ({@link dev.idem.spring.SpringPrincipals#standard} then falls back to the hashed principal header). With
 * {@link SpringWebFluxRoutes} as the configuration's routes, a covered request is named after the
 * pattern WebFlux matched. The handler's response is buffered up to the store's outcome limit
 * before it is stored and sent: a body that goes past it is cut there (an endless one stops) and
 * answered as too large to store, and a streaming response (server-sent events, NDJSON) is refused
 * before its first element with a 500 {@code streaming-response} problem, the key released. When
 * the client leaves, the filter cancels what it still runs, the handler included, so the engine
 * releases the key. The rest of the chain runs with the subscriber's Reactor context. Thread-safe.
 */
public final class IdempotencyWebFilter implements WebFilter, Ordered {
    private static final Set<String> STREAMING_TYPES = Set.of("text/event-stream", "application/x-ndjson",
            "application/stream+json", "application/jsonl");
    private final HttpIdempotency config;
    private final IdempotencyFlow flow;
    private final int order;

    /**
     * A filter applying {@code config}, ordered {@code -90} (after Spring Security's {@code -100}).
     *
     * @param config the HTTP contract's configuration
     */
    public IdempotencyWebFilter(HttpIdempotency config) {
        this(config, -90);
    }

    /**
     * A filter applying {@code config} at {@code order}.
     *
     * @param config the HTTP contract's configuration
     * @param order the filter's order among WebFilters
     */
    public IdempotencyWebFilter(HttpIdempotency config, int order) {
        this.config = Objects.requireNonNull(config, "config");
        this.flow = IdempotencyFlow.of(config);
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        Mono<Void> route = config.routes() instanceof SpringWebFluxRoutes routes ? routes.resolve(exchange)
                : Mono.empty();
        return route.then(WebFluxExchange.caller(exchange))
                .flatMap(principal -> Mono.deferContextual(context -> {
                    WebFluxExchange ex = new WebFluxExchange(exchange, chain, principal, context);
                    // The flow runs as futures; when the client leaves, stop what it still runs.
                    return Mono.fromCompletionStage(() -> flow.handle(ex)).doOnCancel(ex::cancel);
                }));
    }

    /**
     * Whether a response of {@code contentType} is a stream of separately flushed parts
     * ({@code text/event-stream}, {@code application/x-ndjson}, {@code application/stream+json},
     * {@code application/jsonl}), which a covered route cannot answer.
     *
     * @param contentType a response's content type, or null
     * @return whether it is a streaming type
     */
    public static boolean isStreaming(MediaType contentType) {
        return contentType != null && STREAMING_TYPES.contains(
                (contentType.getType() + "/" + contentType.getSubtype()).toLowerCase(Locale.ROOT));
    }

    /**
     * The name of an authenticated, not anonymous, principal.
     *
     * @param principal the exchange's principal
     * @return its name, or empty for an anonymous or unauthenticated one
     */
    static Optional<String> name(Principal principal) {
        return WebFluxExchange.nameOf(principal);
    }
}
