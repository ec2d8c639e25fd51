package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transactional contract on the Spring Boot starter's JDBC transactional mode (Spring MVC on
 * the embedded server, Spring-managed transactions, {@code JdbcTemplate} writes) over a real
 * PostgreSQL, with real crashes: the application ({@link SpringTransactionalServer}) is a child JVM
 * killed with {@code kill -9} at each crash point, and a new one takes over; and a commit that
 * fails after the response was written in the transaction. Both starters run it, each on its Boot
 * generation.
 */
class SpringTransactionalKillTest extends AbstractTransactionalHttpContract {
    private static EmbeddedPostgres pg;
    private static Jdbi jdbi;
    private static ChildServer child;

    @BeforeAll
    static void start() throws Exception {
        pg = EmbeddedPostgresServer.start();
        TransactionalApp.createTables(pg.getPostgresDatabase());
        jdbi = Jdbi.create(pg.getPostgresDatabase());
        child = launch();
    }

    private static ChildServer launch() throws Exception {
        return ChildServer.launch("spring-tx-server", SpringTransactionalServer.class,
                pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
    }

    @AfterAll
    static void stop() throws Exception {
        if (child != null) {
            child.kill();
        }
        if (pg != null) {
            pg.close();
        }
    }

    /**
     * The commit is where the promise is kept or broken: the response was written in the
     * transaction, and a commit that fails takes it back with the row, so the retry runs once. A
     * completion written apart from the handler's transaction would be kept, and the retry would
     * replay a charge that never happened.
     */
    @Test
    void aCommitThatFailsAfterTheResponseWasWrittenKeepsNeitherAndTheRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = http().post(path(), "{\"amount\":1000}", "Idempotency-Key", key,
                "X-Api-Key", "tenant-a", TransactionalApp.FAIL, "at-commit");

        assertThat(failed.statusCode()).as(Http.text(failed)).isEqualTo(500);
        assertThat(effects(key)).isZero();
        HttpResponse<byte[]> retry = http().post(path(), "{\"amount\":1000}", "Idempotency-Key", key,
                "X-Api-Key", "tenant-a");
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).contains("stored");
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(effects(key)).isEqualTo(1);
    }

    @Override
    Http http() {
        return child.http();
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(jdbi, key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        child.awaitCrash();
        child.kill();
        child = launch();
    }
}
