package dev.idem.spring.boot;

import dev.idem.spring.IdemConfigurationException;
import dev.idem.spring.RoutePatterns;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Whether each {@code idem.http.routes} entry covers one of the application's handler mappings,
 * for the startup checks of the servlet and the WebFlux side ({@link IdemRouteCheck},
 * {@link IdemWebFluxRouteCheck}). Loads neither stack's classes.
 */
final class RouteCoverage {
    static final String PROPERTY = "idem.http.routes";
    private static final System.Logger LOG = System.getLogger(RouteCoverage.class.getName());

    private RouteCoverage() {
    }

    /**
     * The startup check of both stacks, once the application's mappings are known: nothing to
     * check without routes or annotated mappings; with functional endpoints, whose routes cannot
     * be listed, nothing is checked (said at INFO); else {@link #check(List, Set, String)}.
     *
     * @param properties the settings, or null
     * @param mapped the patterns of the annotated mappings
     * @param functional whether the application has functional endpoints
     * @param stack "Spring MVC" or "WebFlux", for the message
     */
    static void checkAtStartup(IdemProperties properties, Set<String> mapped, boolean functional, String stack) {
        if (properties == null || properties.http().routes().isEmpty() || mapped.isEmpty()) {
            return;
        }
        if (functional) {
            LOG.log(System.Logger.Level.INFO, "idem: the application has functional endpoints, whose routes "
                    + "cannot be listed, so idem.http.routes is not checked against its mappings");
            return;
        }
        check(properties.http().routes(), mapped, stack);
    }

    /**
     * Refuses the first entry that covers none of {@code mapped} (a mapping's variables read as
     * literal segments, so {@code /orders/*} covers {@code /orders/{id}} but not
     * {@code /orders/{id}/confirm}).
     *
     * @param routes the configured entries
     * @param mapped the patterns the application's handlers are mapped to
     * @param stack "Spring MVC" or "WebFlux", for the message
     * @throws IdemConfigurationException naming the entry, the mappings there are, and the action
     */
    static void check(List<String> routes, Set<String> mapped, String stack) {
        List<PathPattern> patterns = RoutePatterns.parse(PROPERTY, routes);
        for (int i = 0; i < patterns.size(); i++) {
            PathPattern route = patterns.get(i);
            if (covered(route, mapped).isEmpty()) {
                String entry = PROPERTY + "[" + i + "]";
                throw new IdemConfigurationException(entry, entry + "='" + route.getPatternString() + "' covers none "
                        + "of the application's " + stack + " mappings, so no request would be made idempotent by "
                        + "it, and duplicates would run twice unnoticed. Mapped: " + String.join(", ", mapped) + ".",
                        "Change " + entry + " to a Spring path pattern that covers the mapping you meant (* is one "
                                + "path segment, ** any number: /orders/** covers /orders/{id}/confirm, /orders/* "
                                + "does not), or remove it.");
            }
        }
    }

    /** The mapped patterns {@code route} covers. */
    static List<String> covered(PathPattern route, Collection<String> mapped) {
        List<String> covered = new ArrayList<>();
        for (String m : mapped) {
            if (route.getPatternString().equals(m) || route.matches(PathContainer.parsePath(m))) {
                covered.add(m);
            }
        }
        return covered;
    }
}
