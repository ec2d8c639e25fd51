package dev.idem.http;

import java.util.Optional;

/**
 * Maps a request to the route it belongs to (a template such as {@code /v1/charges} or
 * {@code /v1/orders/{id}}). The route and the method form the key's operation, so the same
 * key sent to two routes is two intents. An empty result leaves the request untouched by
 * the filter (not an idempotent route).
 */
@FunctionalInterface
public interface RouteResolver {
    /**
     * The route of {@code request}, or empty to pass it through untouched.
     *
     * @param request the incoming request
     * @return the route of {@code request}, or empty to pass it through untouched
     */
    Optional<String> route(IncomingRequest request);

    /**
     * Every path is its own route (the default).
     *
     * @return a resolver where every path is its own route (the default)
     */
    static RouteResolver path() {
        return request -> Optional.of(request.path());
    }
}
