package dev.idem.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The repository's Markdown files and the fenced blocks in them, read once for the checks. */
final class Docs {
    /** {@code <!-- snippet: path/from/root/File.java#tag -->} on the line before a Java block. */
    static final Pattern MARKER = Pattern.compile("^<!-- snippet: (\\S+)#([\\w-]+) -->$");

    private Docs() {
    }

    /** The repository root: the tests run in this module's directory. */
    static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("readme-tests")) ? here : here.getParent();
    }

    /**
     * Every Markdown file users or contributors read (build output and measured results aside).
     * Build output directories are not entered at all: another module's build may be writing or
     * deleting files there while this walks (a parallel build, an IDE), which must not fail it.
     */
    static List<Path> markdownFiles() {
        return files(file -> file.getFileName().toString().endsWith(".md"));
    }

    /** The files {@code keep} accepts, outside build output, hidden directories and measured results. */
    static List<Path> files(Predicate<Path> keep) {
        Path root = root();
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    String rel = root.relativize(dir).toString().replace('\\', '/');
                    boolean skip = !dir.equals(root) && (name.startsWith(".") || name.equals("target")
                            || name.equals("node_modules") || rel.equals("benchmarks/results"));
                    return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (keep.test(file)) {
                        found.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;   // deleted while walking: nothing to read
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found.stream().sorted().toList();
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fenced block: its info string, its lines, and where it starts (0-based line of the fence). */
    record Block(Path file, int fenceLine, String info, List<String> body, String marker) {
        String where() {
            return root().relativize(file) + ":" + (fenceLine + 1);
        }
    }

    static List<Block> blocks(Path file) {
        List<String> lines = lines(file);
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("```")) {
                continue;
            }
            String info = line.substring(3).trim();
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).startsWith("```")) {
                end++;
            }
            int prev = i - 1;
            while (prev >= 0 && lines.get(prev).isBlank()) {
                prev--;
            }
            String marker = prev >= 0 && MARKER.matcher(lines.get(prev)).matches() ? lines.get(prev) : null;
            out.add(new Block(file, i, info, List.copyOf(lines.subList(i + 1, Math.min(end, lines.size()))), marker));
            i = end;
        }
        return out;
    }

    /** The lines between {@code // tag::name[]} and {@code // end::name[]}, dedented. */
    static List<String> region(Path source, String tag) {
        List<String> lines = lines(source);
        String open = "// tag::" + tag + "[]";
        String close = "// end::" + tag + "[]";
        int from = -1;
        int to = -1;
        for (int i = 0; i < lines.size(); i++) {
            String t = lines.get(i).trim();
            if (t.equals(open)) {
                if (from >= 0) {
                    throw new IllegalStateException("tag " + tag + " opens twice in " + source);
                }
                from = i + 1;
            } else if (t.equals(close)) {
                to = i;
            }
        }
        if (from < 0 || to < from) {
            throw new IllegalStateException("no region " + open + " ... " + close + " in " + source);
        }
        List<String> body = new ArrayList<>();
        for (String l : lines.subList(from, to)) {
            String t = l.trim();
            if (!t.startsWith("// tag::") && !t.startsWith("// end::")) {
                body.add(l);
            }
        }
        int indent = body.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList();
    }

    /**
     * What a README's Java block holds: the region, preceded by the imports it uses and a blank
     * line. Those are the source's own import lines whose simple name the region's code names
     * (comments and string literals aside), and, for a type of the source's own package, which
     * needs no import there, the import an application needs when that type is a main (published)
     * type. Imports of test sources' own types (an example's helpers) are left out: an application
     * has its own. So a block shows the imports it needs, and no other, without a second region
     * to keep in step with the first.
     */
    static List<String> snippet(Path source, String tag) {
        List<String> region = region(source, tag);
        Set<String> used = identifiers(region);
        List<String> lines = lines(source);
        String pkg = lines.stream().map(String::trim).filter(l -> l.startsWith("package "))
                .map(l -> l.substring(8, l.indexOf(';'))).findFirst().orElse("");
        TreeSet<String> statics = new TreeSet<>();
        TreeSet<String> types = new TreeSet<>();
        Set<String> imported = new TreeSet<>();
        for (String l : lines) {
            Matcher m = IMPORT.matcher(l.trim());
            if (m.matches()) {
                String name = m.group(2);
                String simple = name.substring(name.lastIndexOf('.') + 1);
                imported.add(simple);
                String type = m.group(1) == null ? name : name.substring(0, name.lastIndexOf('.'));
                if (used.contains(simple) && !isTestType(type)) {
                    (m.group(1) == null ? types : statics).add(l.trim());
                }
            }
        }
        Set<String> declared = declaredTypes(region);
        for (String name : used) {
            if (!imported.contains(name) && !declared.contains(name) && Character.isUpperCase(name.charAt(0))
                    && mainTypes().contains(pkg + "." + name)) {
                types.add("import " + pkg + "." + name + ";");
            }
        }
        if (statics.isEmpty() && types.isEmpty()) {
            return region;
        }
        List<String> out = new ArrayList<>(statics);
        if (!statics.isEmpty() && !types.isEmpty()) {
            out.add("");
        }
        out.addAll(types);
        out.add("");
        out.addAll(region);
        return out;
    }

    private static final Pattern IMPORT = Pattern.compile("import (static )?([\\w.]+)(\\.\\*)?;(\\s*//.*)?");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w$.])[A-Za-z_$][\\w$]*");
    private static final Pattern DECLARATION = Pattern.compile("\\b(?:class|record|interface|enum) ([A-Za-z_$][\\w$]*)");
    private static Set<String> mainTypes;
    private static Set<String> testTypes;

    /** The names the code of {@code region} uses, not counting comments, strings and member names. */
    static Set<String> identifiers(List<String> region) {
        String code = String.join("\n", region)
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("\"(?:\\\\.|[^\"\\\\\\n])*\"", "\"\"")
                .replaceAll("'(?:\\\\.|[^'\\\\])'", "''")
                .replaceAll("//[^\\n]*", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(code);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    private static Set<String> declaredTypes(List<String> region) {
        Set<String> names = new TreeSet<>();
        Matcher m = DECLARATION.matcher(String.join("\n", region));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Every type of every module's main sources, by qualified name (top-level types: one per file). */
    private static synchronized Set<String> mainTypes() {
        if (mainTypes == null) {
            mainTypes = types("/src/main/java/");
        }
        return mainTypes;
    }

    /**
     * Whether {@code type} (or the type it is nested in) is a test source's own: an example's
     * helper, which an application does not import, so its block shows no import of it.
     */
    private static synchronized boolean isTestType(String type) {
        if (testTypes == null) {
            testTypes = types("/src/test/java/");
        }
        for (String t = type; ; t = t.substring(0, t.lastIndexOf('.'))) {
            if (testTypes.contains(t)) {
                return true;
            }
            if (t.indexOf('.') < 0) {
                return false;
            }
        }
    }

    private static Set<String> types(String sourceRoot) {
        Set<String> names = new TreeSet<>();
        for (Path p : files(f -> f.toString().replace('\\', '/').contains(sourceRoot)
                && f.getFileName().toString().endsWith(".java"))) {
            String path = p.toString().replace('\\', '/');
            String rel = path.substring(path.indexOf(sourceRoot) + sourceRoot.length());
            names.add(rel.substring(0, rel.length() - ".java".length()).replace('/', '.'));
        }
        return names;
    }

    static Matcher marker(String line) {
        Matcher m = MARKER.matcher(line);
        if (!m.matches()) {
            throw new IllegalArgumentException(line);
        }
        return m;
    }
}
