package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The one-transaction promise of an adapter's JDBC transactional mode, against a real server and
 * database: the handler's write ({@link TransactionalApp}, one row per execution) and its stored
 * response commit together, through crashes after and before the commit, and through transient
 * and final failures. Every adapter that offers the mode extends it: the JDK server kills a child
 * JVM with {@code kill -9}; in-process adapters crash as {@link InProcessCrash} does (no store call
 * after the crash point, the transaction's connection cut, a new engine instance taking over).
 */
abstract class AbstractTransactionalHttpContract {
    private static final List<CompletableFuture<?>> ABANDONED = new ArrayList<>();

    /** The client pointed at the running server (after a restart, the new one). */
    abstract Http http();

    /** Rows {@code key}'s executions booked and committed. */
    abstract int effects(String key);

    /** Waits until the server reached the crash point its request asked for, then brings up a new one. */
    abstract void awaitCrashAndRestart() throws Exception;

    /** Where the application's handler is: {@link TransactionalApp#PATH}, unless one server holds several. */
    String path() {
        return TransactionalApp.PATH;
    }

    @AfterAll
    static void forgetAbandonedRequests() {
        ABANDONED.forEach(f -> f.cancel(true));
        ABANDONED.clear();
    }

    private HttpResponse<byte[]> charge(String key, String... headers) throws Exception {
        String[] all = new String[headers.length + 4];
        all[0] = "Idempotency-Key";
        all[1] = key;
        all[2] = "X-Api-Key";
        all[3] = "tenant-a";
        System.arraycopy(headers, 0, all, 4, headers.length);
        return http().post(path(), "{\"amount\":1000}", all);
    }

    /** Sends a request whose server dies before answering; its answer is never waited for. */
    private void chargeAndCrash(String key, String point) {
        ABANDONED.add(http().postAsync(path(), "{\"amount\":1000}", "Idempotency-Key", key,
                "X-Api-Key", "tenant-a", TransactionalApp.CRASH, point));
    }

    /** Retries while the crashed worker's lease is live (409 with Retry-After), at most 60 s. */
    private HttpResponse<byte[]> retryUntilTakenOver(String key) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<byte[]> r = charge(key);
            if (r.statusCode() != 409 || System.nanoTime() > end) {
                return r;
            }
            long wait = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
            Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(1, wait)));
        }
    }

    private static String status(HttpResponse<byte[]> r) {
        return r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS).orElse("none");
    }

    @Test
    void theHandlersWriteAndItsStoredResponseCommitTogether() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = charge(key);
        HttpResponse<byte[]> again = charge(key);

        assertThat(first.statusCode()).as(Http.text(first)).isEqualTo(201);
        assertThat(status(first)).isEqualTo("stored");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(status(again)).isEqualTo("replayed");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void aCrashAfterTheCommitLeavesOneEffectAndTheRetryGetsTheStoredResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        chargeAndCrash(key, TransactionalApp.AFTER_COMMIT);
        awaitCrashAndRestart();

        assertThat(effects(key)).isEqualTo(1);
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("replayed");
        assertThat(Http.text(retry)).contains("\"attempt\":1");
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void aCrashBeforeTheCommitLeavesNoEffectAndTheRetryRunsTheHandlerOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        chargeAndCrash(key, TransactionalApp.BEFORE_COMMIT);
        awaitCrashAndRestart();

        assertThat(effects(key)).isZero();
        HttpResponse<byte[]> retry = retryUntilTakenOver(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(effects(key)).isEqualTo(1);
        HttpResponse<byte[]> again = charge(key);
        assertThat(status(again)).isEqualTo("replayed");
        assertThat(again.body()).isEqualTo(retry.body());
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void aTransientFailureRollsTheWriteBackAndTheRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = charge(key, TransactionalApp.FAIL, "transient");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(Http.text(failed)).contains("handler-failed");
        assertThat(effects(key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void aFinalFailureRollsTheWriteBackAndIsReplayedWithoutRunning() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = charge(key, TransactionalApp.FAIL, "final");
        HttpResponse<byte[]> retry = charge(key);

        assertThat(failed.statusCode()).isEqualTo(422);
        assertThat(Http.text(failed)).contains("replayed-failure").contains("card_declined");
        assertThat(retry.statusCode()).isEqualTo(422);
        assertThat(retry.body()).isEqualTo(failed.body());
        assertThat(effects(key)).isZero();
    }

    @Test
    void aResponseThePolicyDoesNotStoreRollsTheWriteBack() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> unavailable = charge(key, TransactionalApp.FAIL, "unstored");

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(effects(key)).isZero();
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(effects(key)).isEqualTo(1);
    }
}
