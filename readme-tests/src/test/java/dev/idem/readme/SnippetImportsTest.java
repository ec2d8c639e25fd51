package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The imports a README's Java block shows ({@link Docs#snippet}): exactly those its code uses,
 * whether names appear in comments or strings or as members, the import of a main type of the
 * source's own package, which the source itself needs no import for, and none of the example's
 * own test helpers.
 */
class SnippetImportsTest {
    @TempDir
    Path dir;

    private Path source(String... lines) throws IOException {
        Path file = dir.resolve("Example.java");
        Files.write(file, List.of(lines));
        return file;
    }

    @Test
    void theBlockShowsTheImportsItsCodeUsesAndNoOther() throws IOException {
        Path file = source(
                "package dev.idem.store.dynamodb;",
                "",
                "import static org.assertj.core.api.Assertions.assertThat;",
                "",
                "import dev.idem.engine.IdempotencyEngine;",
                "import dev.idem.engine.Result;",
                "import java.time.Duration;",
                "import java.util.UUID;",
                "",
                "class Example {",
                "    void run(DynamoDbClient client) {",
                "        // tag::example[]",
                "        // A Result is what execute returns; \"UUID\" in a string is text.",
                "        DynamoDbTables.createTable(client, \"idem\");",
                "        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();",
                "        String s = \"Duration.ofSeconds\" + engine.UUID;",
                "        // end::example[]",
                "        assertThat(engine).isNotNull();",
                "    }",
                "}");

        assertThat(Docs.snippet(file, "example")).containsExactly(
                "import dev.idem.engine.IdempotencyEngine;",
                "import dev.idem.store.dynamodb.DynamoDbTables;",
                "",
                "// A Result is what execute returns; \"UUID\" in a string is text.",
                "DynamoDbTables.createTable(client, \"idem\");",
                "IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();",
                "String s = \"Duration.ofSeconds\" + engine.UUID;");
    }

    @Test
    void staticImportsComeFirstAndTypesDeclaredInTheBlockNeedNone() throws IOException {
        Path file = source(
                "package dev.idem.readme;",
                "",
                "import static java.util.Objects.requireNonNull;",
                "",
                "import java.util.List;",
                "",
                "class Example {",
                "    void run() {",
                "        // tag::example[]",
                "        record Charge(String id) {}",
                "        List<Charge> charges = requireNonNull(List.of(new Charge(\"ch_1\")));",
                "        // end::example[]",
                "    }",
                "}");

        assertThat(Docs.snippet(file, "example")).containsExactly(
                "import static java.util.Objects.requireNonNull;",
                "",
                "import java.util.List;",
                "",
                "record Charge(String id) {}",
                "List<Charge> charges = requireNonNull(List.of(new Charge(\"ch_1\")));");
    }

    @Test
    void anImportKeepsTheCommentThatSaysWhichModuleItComesFrom() throws IOException {
        Path file = source(
                "package dev.idem.readme;",
                "",
                "import dev.idem.jaxrs.IdempotencyFeature;             // idem-jaxrs",
                "import java.util.List;",
                "",
                "class Example {",
                "    void run() {",
                "        // tag::example[]",
                "        Object feature = new IdempotencyFeature(config);",
                "        // end::example[]",
                "    }",
                "}");

        assertThat(Docs.snippet(file, "example")).containsExactly(
                "import dev.idem.jaxrs.IdempotencyFeature;             // idem-jaxrs",
                "",
                "Object feature = new IdempotencyFeature(config);");
    }

    @Test
    void anExamplesOwnTestHelpersAreNotImported() throws IOException {
        Path file = source(
                "package dev.idem.readme;",
                "",
                "import static dev.idem.readme.QuickStartTest.insertRow;",
                "",
                "import dev.idem.engine.IdempotencyEngine;",
                "import dev.idem.readme.QuickStartTest.Charge;",
                "",
                "class Example {",
                "    void run() {",
                "        // tag::example[]",
                "        Charge c = engine.call(key, request, Charge.class, ctx -> insertRow());",
                "        IdempotencyEngine same = engine;",
                "        // end::example[]",
                "    }",
                "}");

        assertThat(Docs.snippet(file, "example")).containsExactly(
                "import dev.idem.engine.IdempotencyEngine;",
                "",
                "Charge c = engine.call(key, request, Charge.class, ctx -> insertRow());",
                "IdempotencyEngine same = engine;");
    }

    @Test
    void aBlockThatUsesNoImportedNameIsTheRegionAlone() throws IOException {
        Path file = source(
                "package dev.idem.readme;",
                "",
                "import java.util.List;",
                "",
                "class Example {",
                "    // tag::example[]",
                "    record Charge(String id, long amountCents) {}",
                "    // end::example[]",
                "}");

        assertThat(Docs.snippet(file, "example")).containsExactly("record Charge(String id, long amountCents) {}");
    }
}
