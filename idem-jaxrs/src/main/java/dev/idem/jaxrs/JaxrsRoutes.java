package dev.idem.jaxrs;

import dev.idem.http.IncomingRequest;
import dev.idem.http.RouteResolver;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
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
 *
 * <p>Annotations are read as Jakarta REST inherits them: a method without its own
 * {@link Idempotent} or {@link Path} takes the one on the method it overrides or implements
 * (a superclass's before an interface's), and a class without its own takes its superclass's,
 * then an interface's. A resource that declares {@code @Idempotent} on an interface it
 * implements is covered like one that declares it on the class.
 */
public final class JaxrsRoutes {
    private static final Map<Resource, String> TEMPLATES = new ConcurrentHashMap<>();
    private static final Map<Resource, Optional<String>> CONFIGURATIONS = new ConcurrentHashMap<>();

    private record Resource(Class<?> type, Method method) {
    }

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
        return CONFIGURATIONS.computeIfAbsent(new Resource(type, method), r -> {
            Idempotent annotation = onMethod(r.type(), r.method(), Idempotent.class);
            if (annotation == null && r.type() != null) {
                annotation = onClass(r.type(), Idempotent.class);
            }
            return annotation == null ? Optional.empty() : Optional.of(annotation.value());
        });
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
        return TEMPLATES.computeIfAbsent(new Resource(type, method), r -> {
            Path classPath = r.type() == null ? null : onClass(r.type(), Path.class);
            Path methodPath = onMethod(r.type(), r.method(), Path.class);
            return normalize((classPath == null ? "" : classPath.value()) + "/"
                    + (methodPath == null ? "" : methodPath.value()));
        });
    }

    /** The method's own annotation, else the one on the method it overrides or implements. */
    private static <A extends Annotation> A onMethod(Class<?> type, Method method, Class<A> kind) {
        A own = method.getAnnotation(kind);
        if (own != null) {
            return own;
        }
        Class<?> start = type != null && method.getDeclaringClass().isAssignableFrom(type) ? type
                : method.getDeclaringClass();
        for (Class<?> c : supertypes(start)) {
            try {
                A found = c.getDeclaredMethod(method.getName(), method.getParameterTypes()).getAnnotation(kind);
                if (found != null) {
                    return found;
                }
            } catch (NoSuchMethodException notHere) {
                // This type does not declare it; its own supertypes come later in the walk.
            }
        }
        return null;
    }

    /** The class's own annotation, else its superclasses', else its interfaces'. */
    private static <A extends Annotation> A onClass(Class<?> type, Class<A> kind) {
        A own = type.getAnnotation(kind);
        if (own != null) {
            return own;
        }
        for (Class<?> c : supertypes(type)) {
            A found = c.getAnnotation(kind);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** The superclasses nearest first, then every interface breadth first, each once. */
    private static List<Class<?>> supertypes(Class<?> type) {
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> c = type.getSuperclass(); c != null && c != Object.class; c = c.getSuperclass()) {
            out.add(c);
        }
        Deque<Class<?>> interfaces = new ArrayDeque<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            interfaces.addAll(List.of(c.getInterfaces()));
        }
        Set<Class<?>> seen = new HashSet<>();
        while (!interfaces.isEmpty()) {
            Class<?> i = interfaces.removeFirst();
            if (seen.add(i)) {
                out.add(i);
                interfaces.addAll(List.of(i.getInterfaces()));
            }
        }
        return out;
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
