package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.IdempotencyEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every {@code idem.*} name a README gives exists: a property in the starter's configuration
 * metadata or read by a store provider, or a meter, observation or attribute name the code
 * writes. And the properties have one table, the reference page's "Configuration properties":
 * it lists every property of the metadata and of the providers, and no other README repeats
 * property rows (they link to it).
 */
class ReadmePropertiesTest {
    private static final Pattern NAME = Pattern.compile("`(idem\\.[A-Za-z0-9._*<>-]*)");
    private static final Pattern LITERAL = Pattern.compile("\"(idem\\.[a-z0-9._-]+)\"");
    private static final String TABLE_FILE = "docs/reference.md";
    private static final String TABLE_HEADING = "## Configuration properties";
    /**
     * READMEs of the Quarkus extension, whose configuration is its own {@code @ConfigMapping} (no
     * Spring metadata): idem-quarkus's {@code ReadmeConfigurationTest} checks their {@code idem.*}
     * names and their table's defaults against that mapping.
     */
    static final Set<String> OWN_CONFIGURATION = Set.of("idem-quarkus/README.md", "examples/quarkus/README.md");

    static Set<String> metadataProperties() throws IOException {
        Set<String> names = new TreeSet<>();
        Enumeration<URL> all = ReadmePropertiesTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        for (URL url : Collections.list(all)) {
            try (InputStream in = url.openStream()) {
                for (JsonNode p : new ObjectMapper().readTree(in).path("properties")) {
                    String name = p.path("name").asText();
                    if (name.startsWith("idem.") || name.contains(".idem.")) {
                        names.add(name);
                    }
                }
            }
        }
        assertThat(names).as("the starter's configuration metadata on the class path").contains("idem.lease");
        return names;
    }

    /** String literals "idem...." in main sources: provider properties, meter and attribute names. */
    static Set<String> codeNames(String fileSuffix) {
        Set<String> names = new TreeSet<>();
        Docs.files(p -> p.toString().replace('\\', '/').contains("/src/main/java/")
                        && p.toString().endsWith(fileSuffix))
                .forEach(p -> {
                    Matcher m = LITERAL.matcher(String.join("\n", Docs.lines(p)));
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                });
        return names;
    }

    static Set<String> providerProperties() {
        Set<String> names = codeNames("StoreProvider.java");
        names.removeIf(n -> n.endsWith("."));   // prefixes the providers build names from
        assertThat(names).as("properties the store providers read").contains("idem.store.jdbc.url");
        return names;
    }

    @Test
    void everyIdemNameInAReadmeExists() throws IOException {
        Set<String> known = new TreeSet<>(metadataProperties());
        known.addAll(codeNames(".java"));
        // Span events are named "idem." + the event's outcome (idem-opentelemetry).
        for (IdempotencyEvent.Type t : IdempotencyEvent.Type.values()) {
            known.add("idem." + t.outcome());
        }
        List<String> problems = new ArrayList<>();
        for (Path md : Docs.markdownFiles()) {
            if (OWN_CONFIGURATION.contains(Docs.root().relativize(md).toString().replace('\\', '/'))) {
                continue;
            }
            List<String> lines = Docs.lines(md);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = NAME.matcher(lines.get(i));
                while (m.find()) {
                    String name = m.group(1);
                    int cut = name.indexOf('<');
                    boolean prefix = cut >= 0 || name.endsWith(".") || name.endsWith("*");
                    String stem = cut >= 0 ? name.substring(0, cut) : name.replaceAll("\\*+$", "");
                    String bare = stem.endsWith(".") ? stem.substring(0, stem.length() - 1) : stem;
                    boolean exists;
                    if (bare.contains("*")) {
                        // A pattern over several names (idem.protection.*.keys.*): some name must match.
                        Pattern glob = Pattern.compile(Pattern.quote(bare).replace("*", "\\E[A-Za-z0-9_-]*\\Q"));
                        exists = known.stream().anyMatch(k -> glob.matcher(k).lookingAt());
                    } else {
                        exists = prefix ? known.stream().anyMatch(k -> k.startsWith(stem) || k.equals(bare))
                                : known.contains(stem);
                    }
                    if (!exists) {
                        problems.add(Docs.root().relativize(md) + ":" + (i + 1) + ": `" + name + "` is neither a"
                                + " property (starter metadata, store providers) nor a name the code writes");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void onePropertyTableListsEveryPropertyAndNoOtherReadmeRepeatsIt() throws IOException {
        Set<String> metadata = metadataProperties();
        Set<String> providers = providerProperties();
        Set<String> properties = new TreeSet<>(metadata);
        properties.addAll(providers);

        List<String> problems = new ArrayList<>();
        Set<String> inTable = new TreeSet<>();
        for (Path md : Docs.markdownFiles()) {
            String rel = Docs.root().relativize(md).toString().replace('\\', '/');
            if (OWN_CONFIGURATION.contains(rel)) {
                continue;
            }
            List<String> lines = Docs.lines(md);
            boolean inSection = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("## ")) {
                    inSection = rel.equals(TABLE_FILE) && line.equals(TABLE_HEADING);
                }
                List<String> names = propertyCell(line);
                if (names.isEmpty() || names.stream().noneMatch(properties::contains)) {
                    continue;
                }
                if (!inSection) {
                    problems.add(rel + ":" + (i + 1) + ": a property row outside the one table (link to"
                            + " docs/reference.md#configuration-properties instead)");
                    continue;
                }
                for (String n : names) {
                    if (!properties.contains(n)) {
                        problems.add(rel + ":" + (i + 1) + ": " + n + " is not a property");
                    }
                    inTable.add(n);
                }
            }
        }
        Set<String> missing = new TreeSet<>(properties);
        missing.removeAll(inTable);
        // Names the providers still read as fallbacks are not documented.
        missing.removeIf(n -> n.endsWith("timeout-ms"));
        assertThat(problems).isEmpty();
        assertThat(missing).as("properties missing from the table in " + TABLE_FILE).isEmpty();
    }

    /**
     * The names of a table row whose first cell is only property names:
     * {@code | `idem.a.b` / `.c` |} gives idem.a.b and idem.a.c.
     */
    static List<String> propertyCell(String line) {
        if (!line.startsWith("| `")) {
            return List.of();
        }
        int end = line.indexOf(" |", 2);
        String cell = line.substring(2, end < 0 ? line.length() : end).trim();
        if (!cell.matches("(`[A-Za-z0-9._<>-]+`(\\s*(/|,)\\s*)?)+")) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        String base = null;
        Matcher m = Pattern.compile("`([A-Za-z0-9._<>-]+)`").matcher(cell);
        while (m.find()) {
            // A map property's entries (idem.a.keys.<id>) are the map property itself.
            String n = m.group(1).replaceAll("\\.<[a-z-]+>$", "");
            if (n.startsWith(".") && base != null) {
                n = base.substring(0, base.lastIndexOf('.')) + n;
            } else {
                base = n;
            }
            names.add(n);
        }
        return names;
    }
}
