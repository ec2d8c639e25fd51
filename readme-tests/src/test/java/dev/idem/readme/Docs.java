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

    static Matcher marker(String line) {
        Matcher m = MARKER.matcher(line);
        if (!m.matches()) {
            throw new IllegalArgumentException(line);
        }
        return m;
    }
}
