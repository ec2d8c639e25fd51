package dev.idem.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code idem.*} property the Quarkus READMEs (and the example's application.properties) name exists in {@link IdemConfig}, the
 * extension's {@code @ConfigMapping}, under the name SmallRye gives it (methods kebab-cased,
 * groups nested), and a default the configuration table states is the mapping's
 * {@code @WithDefault}. Names the README says do not exist must not; meter names are checked
 * against idem-micrometer's sources. The Spring names of the other READMEs are checked by
 * readme-tests against the starter's metadata.
 */
class ReadmeConfigurationTest {
    /** The READMEs about the Quarkus extension, and the example's configuration, from this module's directory. */
    static final List<Path> READMES = List.of(Path.of("../README.md"), Path.of("../../examples/quarkus/README.md"),
            Path.of("../../examples/quarkus/src/main/resources/application.properties"));
    private static final Pattern QUOTED = Pattern.compile("`(idem\\.[a-z0-9.*-]*[a-z0-9*]|\\.[a-z][a-z0-9-]*)[`=]");
    private static final Pattern ASSIGNED = Pattern.compile("^(idem\\.[a-z0-9.-]+)=");
    private static final Pattern ROW = Pattern.compile("^\\| `(idem\\.[a-z0-9.-]+)` \\| `([^`]+)` \\|");
    private static final Pattern METER = Pattern.compile("\"(idem\\.[a-z0-9._-]+)\"");

    /** Every property of the mapping, by name, with its {@code @WithDefault} (or null). */
    static Map<String, String> properties() {
        Map<String, String> out = new TreeMap<>();
        walk(IdemConfig.class, "idem", out);
        return out;
    }

    private static void walk(Class<?> group, String prefix, Map<String, String> out) {
        for (Method m : group.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.getParameterCount() > 0) {
                continue;
            }
            WithName named = m.getAnnotation(WithName.class);
            String name = prefix + "." + (named != null ? named.value() : kebab(m.getName()));
            if (m.getReturnType().isInterface() && m.getReturnType().getEnclosingClass() == IdemConfig.class) {
                walk(m.getReturnType(), name, out);
            } else {
                WithDefault d = m.getAnnotation(WithDefault.class);
                out.put(name, d == null ? null : d.value());
            }
        }
    }

    /** SmallRye's default naming: {@code inProgressWait} is {@code in-progress-wait}. */
    static String kebab(String method) {
        return method.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** The string literals {@code "idem...."} of idem-micrometer's main sources: its meter names. */
    static Set<String> meterNames() throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("../../idem-micrometer/src/main/java"))) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                Matcher m = METER.matcher(Files.readString(p));
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        assertThat(names).as("idem-micrometer's meter names").contains("idem.events");
        return names;
    }

    /**
     * The problems of one README's lines: a name that is not a property of the mapping (nor a
     * meter), a name said not to exist that does, a table default that is not the mapping's.
     * {@code `.schema`} after {@code `idem.store.jdbc.table`} in one paragraph is
     * {@code idem.store.jdbc.schema}.
     */
    static List<String> problems(String readme, List<String> lines, Map<String, String> properties,
            Set<String> meters) {
        List<String> problems = new ArrayList<>();
        String base = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String where = readme + ":" + (i + 1) + ": ";
            if (line.isBlank()) {
                base = null;
            }
            List<String> names = new ArrayList<>();
            Matcher assigned = ASSIGNED.matcher(line);
            if (assigned.find()) {
                names.add(assigned.group(1));
            }
            Matcher q = QUOTED.matcher(line);
            while (q.find()) {
                String n = q.group(1);
                if (n.startsWith(".")) {
                    if (base == null) {
                        continue;   // `.jar` and the like, not after a property
                    }
                    n = base.substring(0, base.lastIndexOf('.')) + n;
                } else {
                    base = n;
                }
                names.add(n);
            }
            boolean denied = line.contains("There is no") || line.contains("there is no");
            for (String n : names) {
                boolean exists = n.endsWith("*") ? properties.keySet().stream()
                        .anyMatch(p -> p.startsWith(n.substring(0, n.length() - 1)))
                        : properties.containsKey(n) || properties.keySet().stream().anyMatch(p -> p.startsWith(n + "."));
                if (denied && exists) {
                    problems.add(where + "`" + n + "` is said not to exist, but IdemConfig has it");
                } else if (!denied && !exists && !meters.contains(n)) {
                    problems.add(where + "`" + n + "` is not a property of IdemConfig (nor a meter name)");
                }
            }
            Matcher row = ROW.matcher(line);
            if (row.find() && properties.containsKey(row.group(1)) && properties.get(row.group(1)) != null
                    && !properties.get(row.group(1)).equals(row.group(2))) {
                problems.add(where + "`" + row.group(1) + "` defaults to " + properties.get(row.group(1))
                        + ", not " + row.group(2));
            }
        }
        return problems;
    }

    @Test
    void theMappingIsWalkedUnderSmallRyesNames() {
        assertThat(properties()).containsKeys("idem.in-progress-wait", "idem.store.jdbc.create-table",
                "idem.http.principal-header", "idem.purge.batch-size").containsEntry("idem.http.store-retry-after", "1s");
    }

    @Test
    void everyIdemPropertyTheQuarkusReadmesNameIsInTheConfigMapping() throws IOException {
        Map<String, String> properties = properties();
        Set<String> meters = meterNames();
        List<String> problems = new ArrayList<>();
        int names = 0;
        for (Path readme : READMES) {
            List<String> lines = Files.readAllLines(readme);
            problems.addAll(problems(readme.normalize().toString(), lines, properties, meters));
            names += (int) lines.stream().filter(l -> l.contains("`idem.") || l.startsWith("idem.")).count();
        }
        assertThat(problems).isEmpty();
        assertThat(names).as("lines naming idem.* properties").isGreaterThan(10);
    }

    @Test
    void aNameTheMappingLacksOrAWrongDefaultOrAFalseDenialIsReported() {
        List<String> problems = problems("x.md", List.of(
                "`idem.http.principal-header`, `.no-such-thing`",
                "idem.store.jdbc.create-tables=true",
                "There is no `idem.lease`.",
                "| `idem.http.store-retry-after` | `2s` | the Retry-After |",
                "`idem.events` is a meter"), properties(), Set.of("idem.events"));

        assertThat(problems).hasSize(4).anySatisfy(p -> assertThat(p).contains("idem.http.no-such-thing"))
                .anySatisfy(p -> assertThat(p).contains("idem.store.jdbc.create-tables"))
                .anySatisfy(p -> assertThat(p).contains("idem.lease").contains("said not to exist"))
                .anySatisfy(p -> assertThat(p).contains("defaults to 1s, not 2s"));
    }
}
