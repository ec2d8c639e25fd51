package dev.idem.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * The Spring path patterns of {@code idem.http.routes} and {@code idem.http.transactional-routes},
 * parsed once for the servlet filter ({@link SpringRoutes}) and the WebFlux filter alike. Needs
 * only spring-web: no servlet and no WebFlux class is loaded, so a reactive application without
 * the servlet API can use it.
 */
public final class RoutePatterns {
    private RoutePatterns() {
    }

    /**
     * Parses path patterns, refusing what is not one.
     *
     * @param property the property the patterns come from, for the message ({@code idem.http.routes})
     * @param patterns the patterns
     * @return the parsed patterns
     * @throws IdemConfigurationException if a pattern is blank, does not start with {@code /}, or is
     *     not a valid Spring path pattern, naming the property, the entry's index and the parser's error
     */
    public static List<PathPattern> parse(String property, List<String> patterns) {
        List<PathPattern> parsed = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            String text = patterns.get(i) == null ? "" : patterns.get(i).strip();
            String entry = property + "[" + i + "]";
            if (text.isEmpty() || !text.startsWith("/")) {
                throw new IdemConfigurationException(entry, entry + "='" + text + "' is not a path pattern: it must "
                        + "start with /.", fix(entry));
            }
            try {
                parsed.add(PathPatternParser.defaultInstance.parse(text));
            } catch (PatternParseException e) {
                // The parser's own message, not the exception as the cause: Spring Boot's analyzer for
                // PatternParseException would otherwise advise on spring.mvc.pathmatch, which does not apply.
                throw new IdemConfigurationException(entry, entry + "='" + text + "' is not a Spring path pattern: "
                        + e.toDetailedString().replace('\n', ' ').replaceAll(" +", " ").strip(), fix(entry));
            }
        }
        return List.copyOf(parsed);
    }

    private static String fix(String entry) {
        return "Write " + entry + " as a Spring path pattern: /charges, /orders/{id}/confirm, or /orders/** (* is one "
                + "path segment, ** any number of them), or remove it.";
    }
}
