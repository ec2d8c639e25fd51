package dev.idem.spring.webflux;

import dev.idem.http.IncomingRequest;
import dev.idem.http.RouteResolver;
import dev.idem.spring.IdemConfigurationException;
import dev.idem.spring.RoutePatterns;
import dev.idem.spring.SpringRoutes;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.http.server.PathContainer;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The routes {@link IdempotencyWebFilter} covers, as Spring path patterns ({@code /charges},
 * {@code /orders/{id}/confirm}, {@code /orders/**}), named after the pattern WebFlux matched: the
 * WebFlux counterpart of {@link SpringRoutes}. A request is covered when its canonical path within
 * the application matches a pattern and, when the application has WebFlux handler mappings, one
 * of them has a handler for it; its route (the operation name of metrics and spans) is then the
 * pattern that mapping matched ({@code /orders/{id}/confirm}, never the raw path), else the
 * configured pattern. A request no handler serves, or that its handler refuses (405, 415), passes
 * through untouched. The filter resolves the route asynchronously before its own flow
 * ({@link #resolve}); {@link #route} then reads it. Thread-safe.
 */
public final class SpringWebFluxRoutes implements RouteResolver {
    private static final String ROUTE = SpringWebFluxRoutes.class.getName() + ".route";

    private final List<PathPattern> patterns;
    private final Supplier<List<HandlerMapping>> mappings;
    private volatile List<HandlerMapping> resolved;

    private SpringWebFluxRoutes(List<PathPattern> patterns, Supplier<List<HandlerMapping>> mappings) {
        this.patterns = patterns;
        this.mappings = mappings;
    }

    /**
     * Routes from {@code patterns}, matched against WebFlux's {@code mappings} (looked up on the
     * first request).
     *
     * @param property the property the patterns come from, for error messages
     * @param patterns Spring path patterns
     * @param mappings the application's handler mappings that serve endpoints (annotated
     *     controllers, router functions); empty to name routes after the configured patterns
     * @return the routes
     * @throws IdemConfigurationException if a pattern is not a valid Spring path pattern, naming it
     */
    public static SpringWebFluxRoutes of(String property, List<String> patterns,
            Supplier<List<HandlerMapping>> mappings) {
        return new SpringWebFluxRoutes(RoutePatterns.parse(property, patterns),
                Objects.requireNonNull(mappings, "mappings"));
    }

    /**
     * Finds the route of {@code exchange} and keeps it on the exchange for {@link #route}.
     *
     * @param exchange the exchange
     * @return completes once the route is known
     */
    public Mono<Void> resolve(ServerWebExchange exchange) {
        if (patterns.isEmpty()) {
            return Mono.empty();
        }
        String within = RouteResolver.normalizePath(exchange.getRequest().getPath().pathWithinApplication().value());
        PathContainer path = PathContainer.parsePath(within);
        PathPattern configured = patterns.stream().filter(p -> p.matches(path)).findFirst().orElse(null);
        if (configured == null) {
            return Mono.empty();
        }
        List<HandlerMapping> handlerMappings = handlerMappings();
        if (handlerMappings.isEmpty()) {
            exchange.getAttributes().put(ROUTE, configured.getPatternString());
            return Mono.empty();
        }
        return Flux.fromIterable(handlerMappings)
                .concatMap(m -> m.getHandler(exchange).map(h -> matched(exchange, configured)))
                .next()
                // 405, 415, a missing parameter: WebFlux answers; nothing to store.
                .onErrorResume(e -> Mono.empty())
                .doOnNext(route -> exchange.getAttributes().put(ROUTE, route))
                .then();
    }

    private static String matched(ServerWebExchange exchange, PathPattern configured) {
        Object pattern = exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        if (pattern instanceof PathPattern p) {
            return p.getPatternString();
        }
        return pattern == null ? configured.getPatternString() : pattern.toString();
    }

    private List<HandlerMapping> handlerMappings() {
        List<HandlerMapping> m = resolved;
        if (m == null) {
            m = List.copyOf(mappings.get());
            resolved = m;
        }
        return m;
    }

    @Override
    public Optional<String> route(IncomingRequest request) {
        return request.unwrap(ServerWebExchange.class).map(e -> (String) e.getAttribute(ROUTE));
    }
}
