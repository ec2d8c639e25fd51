package dev.idem.http;

import dev.idem.http.internal.Paths;
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

    /**
     * The one spelling of a request path that the HTTP contract keys on, so that a retry that
     * spells the path differently is the same intent: path parameters ({@code ;x=1}) dropped,
     * percent-escapes decoded and only what must be escaped escaped again (upper-case hex,
     * UTF-8; an escaped slash stays escaped), empty and {@code .} segments dropped,
     * {@code ..} resolved (never above the root), a trailing slash kept. A resolver that
     * matches paths itself (a framework's route patterns) matches on this spelling.
     *
     * @param rawPath the request path as sent, without the query
     * @return the canonical path, always starting with {@code /}
     */
    static String normalizePath(String rawPath) {
        return Paths.normalize(rawPath);
    }
}
