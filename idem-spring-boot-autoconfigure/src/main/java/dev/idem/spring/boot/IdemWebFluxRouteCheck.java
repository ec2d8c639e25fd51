package dev.idem.spring.boot;

import dev.idem.spring.IdemConfigurationException;
import dev.idem.spring.RoutePatterns;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The startup check of a WebFlux application's {@code idem.http.routes}: an entry that covers
 * none of its annotated mappings is refused as on the servlet side ({@link RouteCoverage}), and so
 * is an entry that covers a handler whose type shows it streams (it produces only
 * {@code text/event-stream} or NDJSON, or returns {@code ServerSentEvent}s): the filter stores a
 * covered response whole, so a stream would never be answered. Streams the type does not show are
 * refused when they start ({@link dev.idem.spring.webflux.IdempotencyWebFilter}).
 */
final class IdemWebFluxRouteCheck implements SmartInitializingSingleton {
    private final ObjectProvider<IdemProperties> properties;
    private final ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings;
    private final ObjectProvider<RouterFunctionMapping> routerFunctions;

    IdemWebFluxRouteCheck(ObjectProvider<IdemProperties> properties,
            ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings,
            ObjectProvider<RouterFunctionMapping> routerFunctions) {
        this.properties = properties;
        this.handlerMappings = handlerMappings;
        this.routerFunctions = routerFunctions;
    }

    @Override
    public void afterSingletonsInstantiated() {
        IdemProperties p = properties.getIfAvailable();
        if (p == null || p.http().routes().isEmpty()) {
            return;
        }
        List<PathPattern> routes = RoutePatterns.parse(RouteCoverage.PROPERTY, p.http().routes());
        Set<String> mapped = new TreeSet<>();
        handlerMappings.orderedStream().forEach(m -> {
            for (Map.Entry<RequestMappingInfo, HandlerMethod> e : m.getHandlerMethods().entrySet()) {
                RequestMappingInfo info = e.getKey();
                info.getPatternsCondition().getPatterns().forEach(pattern -> mapped.add(pattern.getPatternString()));
                refuseStreaming(routes, p.http().methods(), info, e.getValue());
            }
        });
        RouteCoverage.checkAtStartup(p, mapped,
                routerFunctions.orderedStream().anyMatch(m -> m.getRouterFunction() != null), "WebFlux");
    }

    private static void refuseStreaming(List<PathPattern> routes, List<String> methods, RequestMappingInfo info,
            HandlerMethod handler) {
        Set<RequestMethod> mappedMethods = info.getMethodsCondition().getMethods();
        boolean coveredMethod = mappedMethods.isEmpty()
                || mappedMethods.stream().anyMatch(m -> methods.stream().anyMatch(c -> c.equalsIgnoreCase(m.name())));
        String streaming = streaming(info, handler.getMethod());
        if (!coveredMethod || streaming == null) {
            return;
        }
        for (int i = 0; i < routes.size(); i++) {
            Set<String> patterns = new TreeSet<>();
            info.getPatternsCondition().getPatterns().forEach(pattern -> patterns.add(pattern.getPatternString()));
            List<String> covered = RouteCoverage.covered(routes.get(i), patterns);
            if (!covered.isEmpty()) {
                String entry = RouteCoverage.PROPERTY + "[" + i + "]";
                String where = handler.getBeanType().getSimpleName() + "." + handler.getMethod().getName();
                throw new IdemConfigurationException(entry, entry + "='" + routes.get(i).getPatternString()
                        + "' covers " + covered.get(0) + ", whose handler " + where + " streams its response ("
                        + streaming + "). idem stores a covered response whole before it sends it, so a stream "
                        + "would never be answered.", "Narrow " + entry + " so it does not cover " + covered.get(0)
                        + " (a stream cannot be made idempotent), or make " + where + " answer with a finite body "
                        + "(a Mono).");
            }
        }
    }

    /** The streaming media type the handler's mapping or return type shows, else null. */
    private static String streaming(RequestMappingInfo info, Method method) {
        if (returnsServerSentEvents(ResolvableType.forMethodReturnType(method), 0)) {
            return "server-sent events";
        }
        Set<MediaType> produces = info.getProducesCondition().getProducibleMediaTypes();
        if (produces.isEmpty()) {
            return null;
        }
        for (MediaType type : produces) {
            if (!IdempotencyWebFilter.isStreaming(type)) {
                return null;
            }
        }
        return produces.iterator().next().toString();
    }

    private static boolean returnsServerSentEvents(ResolvableType type, int depth) {
        if (depth > 4 || type == ResolvableType.NONE) {
            return false;
        }
        Class<?> raw = type.resolve();
        if (raw != null && ServerSentEvent.class.isAssignableFrom(raw)) {
            return true;
        }
        for (ResolvableType generic : type.getGenerics()) {
            if (returnsServerSentEvents(generic, depth + 1)) {
                return true;
            }
        }
        return false;
    }
}
