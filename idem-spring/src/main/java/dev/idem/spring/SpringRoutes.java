package dev.idem.spring;

import dev.idem.http.IncomingRequest;
import dev.idem.http.RouteResolver;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The routes the servlet filter covers, as Spring path patterns ({@code /charges},
 * {@code /orders/{id}/confirm}, {@code /orders/**}), and the name each covered request is
 * measured under. A request is covered when its path (in its canonical spelling, within the
 * application) matches one of the patterns and, when the application has Spring MVC handler
 * mappings, one of them has a handler for it; its route is then the pattern Spring MVC matched
 * ({@code /orders/{id}/confirm}), else the configured pattern. A request no handler serves (404),
 * or that its handler refuses for its method or media type (405, 406, 415), passes through
 * untouched, so nothing is stored for it. The route is also handed to Spring's own
 * {@code http.server.requests} observation, which then knows it even when the filter answers
 * (a replay, 409, 422) before the request reaches the dispatcher.
 *
 * <p>Thread-safe.
 */
public final class SpringRoutes implements RouteResolver {
    private final List<PathPattern> patterns;
    private final Supplier<List<HandlerMapping>> mappings;
    private volatile List<HandlerMapping> resolved;

    private SpringRoutes(List<PathPattern> patterns, Supplier<List<HandlerMapping>> mappings) {
        this.patterns = patterns;
        this.mappings = mappings;
    }

    /**
     * Routes from {@code patterns}, matched against Spring MVC's {@code mappings} (looked up on
     * the first request, so the filter may be created before the dispatcher's beans).
     *
     * @param property the property the patterns come from, for error messages
     * @param patterns Spring path patterns
     * @param mappings the application's handler mappings (only those that match annotated or
     *     functional endpoints are consulted); empty when the application has no Spring MVC
     * @return the resolver
     * @throws IdemConfigurationException if a pattern is not a valid Spring path pattern, naming it
     */
    public static SpringRoutes of(String property, List<String> patterns, Supplier<List<HandlerMapping>> mappings) {
        return new SpringRoutes(RoutePatterns.parse(property, patterns), Objects.requireNonNull(mappings, "mappings"));
    }

    /**
     * The configured patterns.
     *
     * @return the patterns
     */
    public List<PathPattern> patterns() {
        return patterns;
    }

    /**
     * Whether {@code request}'s canonical path within the application matches one of {@code patterns}.
     *
     * @param patterns the patterns
     * @param request the request
     * @return whether it matches
     */
    public static boolean matches(List<PathPattern> patterns, HttpServletRequest request) {
        PathContainer path = PathContainer.parsePath(pathWithinApplication(request));
        for (PathPattern p : patterns) {
            if (p.matches(path)) {
                return true;
            }
        }
        return false;
    }

    static String pathWithinApplication(HttpServletRequest request) {
        String uri = request.getRequestURI() == null ? "" : request.getRequestURI();
        String context = request.getContextPath() == null ? "" : request.getContextPath();
        return RouteResolver.normalizePath(uri.startsWith(context) ? uri.substring(context.length()) : uri);
    }

    @Override
    public Optional<String> route(IncomingRequest incoming) {
        Optional<HttpServletRequest> servlet = incoming.unwrap(HttpServletRequest.class);
        if (servlet.isEmpty()) {
            return Optional.empty();
        }
        HttpServletRequest request = servlet.get();
        PathContainer path = PathContainer.parsePath(pathWithinApplication(request));
        PathPattern configured = null;
        for (PathPattern p : patterns) {
            if (p.matches(path)) {
                configured = p;
                break;
            }
        }
        if (configured == null) {
            return Optional.empty();
        }
        List<HandlerMapping> handlerMappings = handlerMappings();
        String route;
        if (handlerMappings.isEmpty()) {
            route = configured.getPatternString();
        } else {
            Optional<String> matched = mvcRoute(handlerMappings, request);
            if (matched.isEmpty()) {
                return Optional.empty();
            }
            // A handler without a pattern to name (a mapping that records none): the configured one.
            route = matched.get().isEmpty() ? configured.getPatternString() : matched.get();
        }
        String named = route;
        ServerHttpObservationFilter.findObservationContext(request).ifPresent(c -> c.setPathPattern(named));
        return Optional.of(route);
    }

    private List<HandlerMapping> handlerMappings() {
        List<HandlerMapping> m = resolved;
        if (m == null) {
            m = List.copyOf(mappings.get());
            resolved = m;
        }
        return m;
    }

    /**
     * The pattern Spring MVC matches for {@code request} (an empty string when its mapping
     * records none), or empty if no handler serves it or its handler refuses it for its method or
     * media type.
     */
    private static Optional<String> mvcRoute(List<HandlerMapping> mappings, HttpServletRequest request) {
        boolean parsedHere = !ServletRequestPathUtils.hasParsedRequestPath(request);
        if (parsedHere) {
            ServletRequestPathUtils.parseAndCache(request);
        }
        try {
            for (HandlerMapping mapping : mappings) {
                HandlerExecutionChain chain;
                try {
                    chain = mapping.getHandler(request);
                } catch (Exception e) {
                    // 405, 406, 415, a missing parameter: the dispatcher answers; nothing to store.
                    return Optional.empty();
                }
                if (chain != null) {
                    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
                    return Optional.of(pattern == null ? "" : pattern.toString());
                }
            }
            return Optional.empty();
        } finally {
            if (parsedHere) {
                ServletRequestPathUtils.clearParsedRequestPath(request);
            }
        }
    }
}
