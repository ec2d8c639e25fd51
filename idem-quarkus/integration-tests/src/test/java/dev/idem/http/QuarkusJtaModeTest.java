package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.quarkus.jta.JtaHandlerExecution;
import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code idem.http.transactional=true} on the configuration the extension builds, over a real
 * PostgreSQL: its resource method books through a {@code @Transactional} bean over the
 * application's datasource ({@link QuarkusJtaApp.ModeCharges}), and the booking commits with the
 * stored response, or not at all: a method that throws after booking leaves no row, nor does one
 * that answers 201 over a transaction a bean marked for rollback (its response is not stored),
 * nor one whose commit fails after its response was written in the transaction.
 * The crash cases run on the same execution in {@link QuarkusJtaDataSourceContractTest}.
 */
@QuarkusTest
@TestProfile(Backends.JtaModeProfile.class)
class QuarkusJtaModeTest {
    private static final String PATH = "/mode/charges";

    private final Http http = new Http("http://127.0.0.1:" + AbstractQuarkusContract.port());
    private Jdbi jdbi;

    @BeforeEach
    void tables() {
        AgroalDataSource dataSource = Arc.container().instance(AgroalDataSource.class).get();
        TransactionalApp.createTables(dataSource);
        jdbi = Jdbi.create(dataSource);
    }

    private HttpResponse<byte[]> charge(String key, String... headers) throws Exception {
        String[] all = new String[headers.length + 4];
        all[0] = "Idempotency-Key";
        all[1] = key;
        all[2] = "X-Api-Key";
        all[3] = "tenant-a";
        System.arraycopy(headers, 0, all, 4, headers.length);
        return http.post(PATH, "{\"amount\":1000}", all);
    }

    private static String status(HttpResponse<byte[]> r) {
        return r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS).orElse("none");
    }

    @Test
    void theExtensionsConfigurationRunsTheJtaMode() {
        assertThat(Arc.container().instance(HttpIdempotency.class).get().execution())
                .isInstanceOf(JtaHandlerExecution.class);
    }

    @Test
    void theBookingAndTheStoredResponseCommitTogether() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = charge(key);
        HttpResponse<byte[]> again = charge(key);

        assertThat(first.statusCode()).as(Http.text(first)).isEqualTo(201);
        assertThat(status(first)).isEqualTo("stored");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(status(again)).isEqualTo("replayed");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(TransactionalApp.effects(jdbi, key)).isEqualTo(1);
    }

    @Test
    void aMethodThatThrowsAfterBookingLeavesNoRowAndItsRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = charge(key, TransactionalApp.FAIL, "transient");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(TransactionalApp.effects(jdbi, key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(TransactionalApp.effects(jdbi, key)).isEqualTo(1);
    }

    /**
     * The commit is where the promise is kept or broken: the response was written in the
     * transaction, and a commit that fails takes it back with the row, so the retry runs once.
     * A completion written apart from the booking's transaction would be kept, and the retry would
     * replay a charge that never happened.
     */
    @Test
    void aCommitThatFailsAfterTheResponseWasWrittenKeepsNeitherAndTheRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = charge(key, TransactionalApp.FAIL, "at-commit");

        assertThat(failed.statusCode()).as(Http.text(failed)).isEqualTo(500);
        assertThat(TransactionalApp.effects(jdbi, key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(TransactionalApp.effects(jdbi, key)).isEqualTo(1);
    }

    /**
     * A method the interceptor never reached wrote outside the request's transaction: its response
     * is not stored (500, key released), rather than stored as if its write had joined.
     */
    @Test
    void aMethodThatRanOutsideTheTransactionHasItsResponseRefused() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> refused = charge(key, TransactionalApp.FAIL, "unjoined");

        assertThat(refused.statusCode()).as(Http.text(refused)).isEqualTo(500);
        assertThat(status(refused)).isNotEqualTo("stored");
        assertThat(TransactionalApp.effects(jdbi, key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(TransactionalApp.effects(jdbi, key)).isEqualTo(1);
    }

    @Test
    void aResponseOverATransactionMarkedForRollbackIsNotStoredAndLeavesNoRow() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> doomed = charge(key, TransactionalApp.FAIL, "rollback-only");

        assertThat(doomed.statusCode()).as(Http.text(doomed)).isEqualTo(500);
        assertThat(TransactionalApp.effects(jdbi, key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(TransactionalApp.effects(jdbi, key)).isEqualTo(1);
    }
}
