package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * Every Java block in every README is a copy of a tagged region of a test source, which that
 * module's tests compile and run: so a README example that stops compiling, or stops doing what
 * it says (the test around it asserts that), fails the build. A Java block is written as
 *
 * <pre>
 * &lt;!-- snippet: store-jdbc/src/test/java/dev/idem/store/jdbc/ReadmeExamplesTest.java#transactional --&gt;
 * ```java
 * (the imports the region uses, a blank line, then the lines between
 *  "// tag::transactional[]" and "// end::transactional[]", dedented)
 * ```
 * </pre>
 *
 * <p>The imports are the source's own import lines whose names the region's code uses, and the
 * import of each main type of the source's own package it uses ({@link Docs#snippet}), so a
 * reader can paste the block with what it needs and nothing else.
 *
 * Edit the Java source, then copy it into the README with
 * {@code ./mvnw -B -pl readme-tests test -Dtest=ReadmeSnippetsTest -Dsnippets.write=true}.
 */
class ReadmeSnippetsTest {
    @Test
    void everyJavaBlockIsATaggedRegionOfACompiledTestSource() throws IOException {
        Path root = Docs.root();
        boolean write = Boolean.getBoolean("snippets.write");
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path md : Docs.markdownFiles()) {
            List<String> lines = new ArrayList<>(Docs.lines(md));
            boolean changed = false;
            // Bottom up, so that rewriting a block keeps the line numbers of those above it.
            List<Docs.Block> blocks = new ArrayList<>(Docs.blocks(md));
            java.util.Collections.reverse(blocks);
            for (Docs.Block block : blocks) {
                if (block.marker() == null) {
                    if (block.info().equals("java")) {
                        problems.add(block.where() + ": a java block without a line"
                                + " \"<!-- snippet: <test source from the repository root>#<tag> -->\" before it");
                    }
                    continue;
                }
                if (!block.info().equals("java")) {
                    problems.add(block.where() + ": a snippet marker before a block that is not ```java");
                    continue;
                }
                Matcher m = Docs.marker(block.marker());
                Path source = root.resolve(m.group(1));
                if (!m.group(1).contains("/src/test/java/") || !Files.isRegularFile(source)) {
                    problems.add(block.where() + ": " + m.group(1) + " is not a test source (src/test/java) that"
                            + " exists, so nothing compiles and runs the example");
                    continue;
                }
                List<String> expected;
                try {
                    expected = Docs.snippet(source, m.group(2));
                } catch (IllegalStateException e) {
                    problems.add(block.where() + ": " + e.getMessage());
                    continue;
                }
                checked++;
                if (!expected.equals(block.body())) {
                    if (write) {
                        int from = block.fenceLine() + 1;
                        for (int i = 0; i < block.body().size(); i++) {
                            lines.remove(from);
                        }
                        lines.addAll(from, expected);
                        changed = true;
                    } else {
                        problems.add(block.where() + ": differs from " + m.group(1) + "#" + m.group(2)
                                + " (edit the source and run with -Dsnippets.write=true)");
                    }
                }
            }
            if (changed) {
                Files.write(md, lines);
            }
        }
        assertThat(problems).as("README Java blocks").isEmpty();
        assertThat(checked).as("snippets checked").isPositive();
    }
}
