package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The main sources' imports form no cycle: the public package may use {@code .internal}, never
 * the other way round and back (a pair like {@code IdempotencyKeyGenerator} importing
 * {@code internal.UuidV7Generator}, which imported it back, makes the two one unit).
 */
class ImportCycleTest {
    private static final Pattern IMPORT = Pattern.compile("(?m)^import (dev\\.idem\\.client[\\w.]*\\.[A-Z]\\w*);");

    @Test
    void importsBetweenMainSourceFilesFormNoCycle() throws IOException {
        Path root = Path.of("src/main/java");
        Map<String, List<String>> imports = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String name = root.relativize(file).toString().replace(".java", "").replace(file.getFileSystem()
                        .getSeparator(), ".");
                List<String> targets = new ArrayList<>();
                Matcher m = IMPORT.matcher(Files.readString(file));
                while (m.find()) {
                    targets.add(m.group(1));
                }
                imports.put(name, targets);
            }
        }
        assertThat(imports).as("sources found").containsKey("dev.idem.client.IdempotencyKeyGenerator");

        assertThat(cycle(imports)).as("an import cycle").isEmpty();
    }

    /** The first cycle found by a depth-first search, as its files in order; empty if none. */
    private static List<String> cycle(Map<String, List<String>> graph) {
        Set<String> done = new HashSet<>();
        for (String start : graph.keySet()) {
            Deque<String> path = new ArrayDeque<>();
            List<String> found = visit(start, graph, path, new HashMap<>(), done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        return List.of();
    }

    private static List<String> visit(String node, Map<String, List<String>> graph, Deque<String> path,
            Map<String, Boolean> onPath, Set<String> done) {
        if (Boolean.TRUE.equals(onPath.get(node))) {
            List<String> cycle = new ArrayList<>();
            boolean in = false;
            for (String p : (Iterable<String>) path::descendingIterator) {
                in |= p.equals(node);
                if (in) {
                    cycle.add(p);
                }
            }
            cycle.add(node);
            return cycle;
        }
        if (!done.add(node)) {
            return List.of();
        }
        onPath.put(node, true);
        path.push(node);
        for (String next : graph.getOrDefault(node, List.of())) {
            List<String> found = visit(next, graph, path, onPath, done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        path.pop();
        onPath.put(node, false);
        return List.of();
    }
}
