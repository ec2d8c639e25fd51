package dev.idem.jaxrs;

import dev.idem.http.IncomingRequest;
import dev.idem.http.RouteResolver;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;

/**
 * Routes of Jakarta REST requests, named after the resource method they matched: its path
 * template, such as {@code /orders/{id}} (the class's {@code @Path} joined to the method's, with
 * any regular expression left out of its parameters). The route names the operation in metrics
 * and spans; records stay keyed by the request's own path. A request that matched no resource
 * method has no route and passes through. Use them with {@link IdempotencyFilter}, which shows
 * them the matched {@link ResourceInfo}.
 */
public final class JaxrsRoutes {
    private static final Map<Method, String> TEMPLATES = new ConcurrentHashMap<>();

    private JaxrsRoutes() {
    }

    /**
     * Every resource method is a route (the covered HTTP methods still decide what is covered).
     *
     * @return the resolver
     */
    public static RouteResolver resourceMethods() {
        return matching((type, method) -> true);
    }

    /**
     * The resource methods annotated {@link Idempotent} with the default (empty) name, or in a
     * class so annotated: selection by annotation.
     *
     * @return the resolver
     */
    public static RouteResolver annotated() {
        return annotated("");
    }

    /**
     * The resource methods annotated {@link Idempotent @Idempotent(configuration)}, or in a class
     * so annotated (a method's own annotation wins over its class's).
     *
     * @param configuration the name in the annotation; empty for the default
     * @return the resolver
     */
    public static RouteResolver annotated(String configuration) {
        Objects.requireNonNull(configuration, "configuration");
        return matching((type, method) -> configuration(type, method).filter(configuration::equals).isPresent());
    }

    /**
     * The resource methods whose template is one of {@code templates} (as {@link #template} spells
     * them, for example {@code /charges} or {@code /orders/{id}/confirm}).
     *
     * @param templates the covered templates
     * @return the resolver
     * @throws IllegalArgumentException if a template does not start with {@code /}
     */
    public static RouteResolver templates(Collection<String> templates) {
        Set<String> covered = Set.copyOf(templates);
        for (String t : covered) {
            if (!t.startsWith("/")) {
                throw new IllegalArgumentException("a route template starts with / but was \"" + t + "\"");
            }
        }
        return matching((type, method) -> covered.contains(template(type, method)));
    }

    /**
     * The configuration name of {@link Idempotent} on {@code method}, else on {@code type}.
     *
     * @param type the resource class
     * @param method the resource method
     * @return the name, or empty if neither is annotated
     */
    public static Optional<String> configuration(Class<?> type, Method method) {
        Idempotent annotation = method.getAnnotation(Idempotent.class);
        if (annotation == null && type != null) {
            annotation = type.getAnnotation(Idempotent.class);
        }
        return annotation == null ? Optional.empty() : Optional.of(annotation.value());
    }

    /**
     * The path template of a resource method: {@code /} and the class's {@code @Path} joined to the
     * method's, single slashes, no trailing one, parameters without their regular expressions.
     *
     * @param type the resource class (its {@code @Path}, if any, comes first)
     * @param method the resource method
     * @return the template, at least {@code /}
     */
    public static String template(Class<?> type, Method method) {
        return TEMPLATES.computeIfAbsent(method, m -> {
            Path classPath = type == null ? null : type.getAnnotation(Path.class);
            Path methodPath = m.getAnnotation(Path.class);
            return normalize((classPath == null ? "" : classPath.value()) + "/"
                    + (methodPath == null ? "" : methodPath.value()));
        });
    }

    private static RouteResolver matching(BiPredicate<Class<?>, Method> covered) {
        return request -> resource(request).flatMap(info -> {
            Method method = info.getResourceMethod();
            Class<?> type = info.getResourceClass();
            return method != null && covered.test(type, method) ? Optional.of(template(type, method))
                    : Optional.empty();
        });
    }

    private static Optional<ResourceInfo> resource(IncomingRequest request) {
        return request.unwrap(ResourceInfo.class);
    }

    static String normalize(String raw) {
        StringBuilder out = new StringBuilder(raw.length() + 1).append('/');
        int depth = 0;
        boolean regex = false;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (regex) {
                // Inside "{name: regex}": drop the regex, which may nest braces of its own.
                if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    regex = false;
                    out.append('}');
                }
                continue;
            }
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
            } else if (depth > 0 && c == ':') {
                regex = true;
                continue;
            } else if (depth > 0 && c == ' ') {
                continue;
            } else if (c == '/' && out.charAt(out.length() - 1) == '/') {
                continue;
            }
            out.append(c);
        }
        if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
            out.setLength(out.length() - 1);
        }
        return out.toString();
    }
}
