package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's examples, run as printed against a loopback server that fails first. */
@Timeout(60)
class ReadmeExamplesTest {
    private final List<String> log = new ArrayList<>();

    private void log(int status, int attempts, boolean replayed) {
        log.add(status + "/" + attempts + "/" + replayed);
    }

    @Test
    void httpClient() throws Exception {
        try (FaultServer server = FaultServer.start()) {
            server.script("/payments", FaultServer.status(503, "Retry-After", "0"),
                    FaultServer.body(201, "application/json", "{\"id\":\"p1\"}"));
            String json = "{\"amount\":10}";
            URI paymentsUri = server.uri("/payments");
            // tag::http[]
            HttpClient http = HttpClient.newHttpClient();
            RetryBudget budget = RetryBudget.builder().build();          // one per downstream service, shared
            IdempotentHttpClient client = IdempotentHttpClient.newBuilder(http)
                .policy(RetryPolicy.builder()
                    .maxAttempts(4)
                    .baseDelay(Duration.ofMillis(100))
                    .maxDelay(Duration.ofSeconds(2))
                    .deadline(Duration.ofSeconds(10))
                    .build())
                .budget(budget)
                .build();

            HttpRequest request = HttpRequest.newBuilder(paymentsUri)   // https://api.example.com/payments
                .timeout(Duration.ofSeconds(2))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();

            // Sync
            IdempotentResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
            r.statusCode(); r.body(); r.attempts(); r.replayed(); r.idempotencyKey();

            // Async: no thread blocks between attempts; cancelling the future stops further attempts
            CompletableFuture<Void> done = client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                .thenAccept(resp -> log(resp.statusCode(), resp.attempts(), resp.replayed()));
            // end::http[]
            done.join();
            assertThat(r.statusCode()).isEqualTo(201);
            assertThat(r.attempts()).isEqualTo(2);
            assertThat(log).containsExactly("201/1/false");
            // One key per intent: both attempts of the first send carried the same key (quoted, as the
            // draft's Structured Field string).
            assertThat(server.keys("/payments").subList(0, 2)).containsOnly("\"" + r.idempotencyKey() + "\"");
        }
    }

    interface Stub {
        Stub withKey(String key);

        String charge(String request) throws IOException;
    }

    @Test
    void retrier() throws Exception {
        RetryPolicy policy = RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(1))
                .maxDelay(Duration.ofMillis(5)).build();
        RetryBudget budget = RetryBudget.builder().build();
        List<String> keys = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        Stub stub = new Stub() {
            @Override
            public Stub withKey(String key) {
                keys.add(key);
                return this;
            }

            @Override
            public String charge(String request) throws IOException {
                if (calls.incrementAndGet() == 1) {
                    throw new IOException("unavailable");
                }
                return "charged " + request;
            }
        };
        String req = "order-1";
        List<String> published = new ArrayList<>();
        String message = "m1";
        // tag::retrier[]
        Retrier retrier = Retrier.builder().policy(policy).budget(budget).build();

        // The key is handed to each attempt; send it the way your protocol carries it.
        RetryResult<String> result = retrier.execute(
            attempt -> stub.withKey(attempt.idempotencyKey()).charge(req),
            RetryClassifier.of(reply -> false, e -> e instanceof IOException));   // predicates on result / exception

        // Plain Callable, default classification (I/O failures and timeouts)
        String value = retrier.call(() -> published.add(message) ? "sent" : "not sent");
        // end::retrier[]
        assertThat(result.value()).isEqualTo("charged order-1");
        assertThat(result.attempts()).isEqualTo(2);
        assertThat(keys).hasSize(2).containsOnly(result.idempotencyKey());
        assertThat(value).isEqualTo("sent");
        assertThat(published).containsExactly("m1");
    }
}
