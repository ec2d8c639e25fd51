package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No module reaches into another module's {@code .internal} packages: every main and test source of
 * every module in the repository is read, and a reference (an import, a static import or a qualified
 * name in code) to a {@code dev.idem...internal} package counts only if the same module's main
 * sources declare that package. A test source that declares another module's internal package (to
 * reach its package-private members) is refused too. What an internal class of one module is needed
 * for elsewhere becomes a supported public type of its module, or moves to where both can use it.
 */
class ModuleBoundariesTest {
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** A qualified name's package part: the lower-case segments before a type name or {@code *}. */
    private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.idem((?:\\.[a-z_][a-z0-9_]*)+)\\.(?=[A-Z*])");

    @Test
    void noModuleImportsAnotherModulesInternals() {
        Map<Path, List<Path>> sourcesByModule = new HashMap<>();
        for (Path file : Docs.files(f -> f.toString().endsWith(".java"))) {
            Path module = moduleOf(file);
            if (module != null) {
                sourcesByModule.computeIfAbsent(module, m -> new ArrayList<>()).add(file);
            }
        }
        assertThat(sourcesByModule).as("modules found under %s", Docs.root()).hasSizeGreaterThan(20);

        List<String> crossings = new ArrayList<>();
        sourcesByModule.forEach((module, files) -> {
            Set<String> own = new HashSet<>();
            for (Path file : files) {
                String pkg = packageOf(code(file));
                if (isMain(module, file) && pkg != null && isInternal(pkg)) {
                    own.add(pkg);
                }
            }
            for (Path file : files) {
                String code = code(file);
                String where = Docs.root().relativize(file).toString();
                String pkg = packageOf(code);
                if (pkg != null && isInternal(pkg) && !own.contains(pkg)) {
                    crossings.add(where + " declares package " + pkg + " of another module");
                }
                Matcher m = REFERENCE.matcher(code);
                while (m.find()) {
                    String referenced = "dev.idem" + m.group(1);
                    if (isInternal(referenced) && !own.contains(referenced)) {
                        crossings.add(where + " uses " + referenced);
                    }
                }
            }
        });
        assertThat(crossings.stream().distinct().sorted().toList())
                .as("references into another module's .internal packages").isEmpty();
    }

    @Test
    void theScannerSeesReferencesInCodeAndIgnoresCommentsAndStrings() {
        String source = """
                package dev.idem.x;
                import dev.idem.a.internal.A;
                import static dev.idem.b.internal.sub.B.call;
                // dev.idem.c.internal.C in a comment
                /* dev.idem.d.internal.D */
                class X { String s = "dev.idem.e.internal.E"; Object o = new dev.idem.f.internal.F(); }
                """;
        Matcher m = REFERENCE.matcher(strip(source));
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add("dev.idem" + m.group(1));
        }
        assertThat(found).containsExactly("dev.idem.a.internal", "dev.idem.b.internal.sub", "dev.idem.f.internal");
    }

    /** The nearest directory above {@code src/main/java} or {@code src/test/java}; null for other files. */
    private static Path moduleOf(Path file) {
        for (Path dir = file.getParent(); dir != null && dir.getParent() != null; dir = dir.getParent()) {
            Path src = dir.getParent();
            if (src.getFileName() != null && src.getFileName().toString().equals("src")
                    && (dir.getFileName().toString().equals("main") || dir.getFileName().toString().equals("test"))) {
                return src.getParent();
            }
        }
        return null;
    }

    private static boolean isMain(Path module, Path file) {
        return file.startsWith(module.resolve("src").resolve("main"));
    }

    private static boolean isInternal(String pkg) {
        return (pkg + ".").contains(".internal.");
    }

    private static String packageOf(String code) {
        Matcher m = PACKAGE.matcher(code);
        return m.find() ? m.group(1) : null;
    }

    private static String code(Path file) {
        return strip(String.join("\n", Docs.lines(file)));
    }

    /** The source with comments, string and character literals (text blocks too) blanked out. */
    static String strip(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
                out.append(' ');
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                while (end > 0 && s.charAt(end - 1) == '\\') {
                    end = s.indexOf("\"\"\"", end + 1);
                }
                i = end < 0 ? s.length() : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c && s.charAt(j) != '\n') {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                i = Math.min(j + 1, s.length());
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
