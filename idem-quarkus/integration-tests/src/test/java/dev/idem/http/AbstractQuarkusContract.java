package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import io.quarkus.arc.Arc;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The unchanged {@link AbstractHttpContract} over the running Quarkus application
 * ({@link QuarkusContractApp}), and what only a Quarkus REST server can get wrong: a client that
 * hangs up while the handler runs.
 */
abstract class AbstractQuarkusContract extends AbstractHttpContract {
    @Override
    Http http() {
        return new Http("http://127.0.0.1:" + port());
    }

    static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }

    @Override
    TestHandler handler() {
        return QuarkusContractApp.HANDLER;
    }

    @Override
    SwitchableStore store() {
        return (SwitchableStore) Arc.container().instance(IdempotencyEngine.class).get().store();
    }

    @Test
    void aClientThatGivesUpDoesNotKeepTheOutcomeFromBeingStored() throws Exception {
        TestHandler h = handler();
        h.gate = new CountDownLatch(1);
        h.entered = new CountDownLatch(1);
        String key = key();
        CountDownLatch closed = new CountDownLatch(1);
        ContractResources.CLOSED.put(key, closed);
        try (Socket impatient = new Socket("127.0.0.1", port())) {
            String body = "{}";
            impatient.getOutputStream().write(("POST /api/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nIdempotency-Key: " + key + "\r\nX-User: alice\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            impatient.getOutputStream().flush();
            assertThat(h.entered.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            // The client hangs up while the handler runs; once the server has seen it go, the handler
            // finishes, and its outcome must still be stored (Quarkus REST would cancel the stage).
            try {
                assertThat(closed.await(10, TimeUnit.SECONDS)).as("the server saw the client go").isTrue();
            } finally {
                h.gate.countDown();
            }
        }
        HttpResponse<byte[]> retry = awaitAnswer(key);

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(h.executions("/api/slow", key)).isEqualTo(1);
    }

    /** Retries while the abandoned call is still being stored (409), for at most 10 seconds. */
    private HttpResponse<byte[]> awaitAnswer(String key) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            HttpResponse<byte[]> r = http().post("/api/slow", "{}", "Idempotency-Key", key, "X-User", "alice");
            if (r.statusCode() != 409 || System.nanoTime() > deadline) {
                return r;
            }
            Thread.onSpinWait();
        }
    }
}
