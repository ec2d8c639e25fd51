package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code --db-url} switch to PostgreSQL, against a real server started from Maven artifacts. */
class PostgresDemoTest {
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgresServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void theScenarioPassesOnPostgresql() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        Audit audit = PaymentsDemo.run(DemoSettings.parse("--db-url", url, "--db-user", "postgres", "--charges", "30",
                "--threads", "4", "--seed", "11"), new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(audit.passed()).isTrue();
        assertThat(audit.chargesInLedger()).isEqualTo(30);
        assertThat(audit.refundsInLedger()).isEqualTo(10);
        assertThat(audit.responsesLost()).isPositive();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("jdbc:postgresql://127.0.0.1:");
    }
}
