package dev.idem.spring.boot;

import dev.idem.spring.SpringRoutes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.http.server.PathContainer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Warns at startup about every {@code idem.http.routes} pattern that covers none of the
 * application's Spring MVC mappings, naming the mappings it has, so a pattern that covers
 * nothing (a servlet-style {@code /orders/*} where {@code /orders/**} was meant) is seen
 * before the first request without a key is let through.
 */
final class IdemRouteCheck implements ApplicationListener<ContextRefreshedEvent> {
    private static final System.Logger LOG = System.getLogger(IdemRouteCheck.class.getName());

    private final ObjectProvider<IdemProperties> properties;
    private final ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings;
    private volatile boolean done;

    IdemRouteCheck(ObjectProvider<IdemProperties> properties,
            ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings) {
        this.properties = properties;
        this.handlerMappings = handlerMappings;
    }

    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        IdemProperties p = properties.getIfAvailable();
        if (done || p == null || p.getHttp().getRoutes().isEmpty()) {
            return;
        }
        done = true;
        Set<String> mapped = new TreeSet<>();
        handlerMappings.orderedStream().forEach(m -> {
            for (RequestMappingInfo info : m.getHandlerMethods().keySet()) {
                mapped.addAll(info.getPatternValues());
            }
        });
        if (mapped.isEmpty()) {
            return;
        }
        for (String warning : uncovered(p.getHttp().getRoutes(), mapped)) {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
    }

    /** One message per configured route that matches no mapped pattern (its variables read as literal segments). */
    static List<String> uncovered(List<String> routes, Set<String> mapped) {
        List<PathPattern> patterns = SpringRoutes.parse("idem.http.routes", routes);
        List<String> warnings = new ArrayList<>();
        for (PathPattern route : patterns) {
            boolean covers = mapped.stream().anyMatch(m -> route.matches(PathContainer.parsePath(m))
                    || route.getPatternString().equals(m));
            if (!covers) {
                warnings.add("idem: idem.http.routes entry '" + route.getPatternString() + "' covers none of the "
                        + "application's Spring MVC mappings, so no request is made idempotent by it (Spring path "
                        + "patterns: * is one segment, ** any number). Mapped: " + String.join(", ", mapped));
            }
        }
        return warnings;
    }
}
