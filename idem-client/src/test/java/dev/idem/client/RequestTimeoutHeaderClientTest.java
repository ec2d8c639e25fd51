package dev.idem.client;

import static dev.idem.client.FaultServer.body;
import static dev.idem.client.FaultServer.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Deadline;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code X-Request-Timeout} header on every attempt, against a real loopback server: the time
 * left of the retry sequence, never more than the attempt's own timeout, shrinking from attempt to
 * attempt as the (virtual) time the sequence spends passes; bounded by a deadline bound to the
 * caller's thread or carried by the request.
 */
@Timeout(20)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestTimeoutHeaderClientTest {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private FakeTime time;
    private FaultServer server;

    @BeforeEach
    void setUp() throws IOException {
        time = new FakeTime();
        server = FaultServer.start();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private IdempotentHttpClient.Builder client(Duration deadline) {
        return IdempotentHttpClient.newBuilder(http).budget(RetryBudget.unlimited()).policy(time.policy()
                .maxAttempts(5).baseDelay(Duration.ofMillis(100)).maxDelay(Duration.ofSeconds(1))
                .deadline(deadline).random(FixedRandom.highest()).build());
    }

    private HttpRequest.Builder post(String path) {
        return HttpRequest.newBuilder(server.uri(path)).POST(BodyPublishers.ofString("{}"));
    }

    @Test
    void theHeaderShrinksAcrossAttemptsByTheTimeTheSequenceSpent() throws Exception {
        server.script("/pay", status(503, "Retry-After", "2"), status(503, "Retry-After", "3"), status(429),
                body(200, "text/plain", "done"));

        IdempotentResponse<String> r = client(Duration.ofSeconds(10)).build()
                .send(post("/pay").build(), BodyHandlers.ofString());

        assertThat(r.attempts()).isEqualTo(4);
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(3),
                Duration.ofMillis(400));
        // 10 s, less each wait: what the sequence still has when the attempt is sent.
        assertThat(server.timeouts("/pay")).containsExactly("10000", "8000", "5000", "4600");
    }

    @Test
    void theHeaderIsNeverMoreThanTheAttemptsOwnTimeout() throws Exception {
        server.script("/pay", status(503, "Retry-After", "5"), status(503, "Retry-After", "4"),
                body(200, "text/plain", "done"));

        client(Duration.ofSeconds(10)).build().send(post("/pay").timeout(Duration.ofMillis(2500)).build(),
                BodyHandlers.ofString());

        assertThat(server.timeouts("/pay")).containsExactly("2500", "2500", "1000");
    }

    @Test
    void theAsynchronousSendShrinksItAlike() throws Exception {
        server.script("/pay", status(503, "Retry-After", "2"), status(503, "Retry-After", "3"),
                body(200, "text/plain", "done"));

        client(Duration.ofSeconds(10)).build().sendAsync(post("/pay").build(), BodyHandlers.ofString())
                .get();

        assertThat(server.timeouts("/pay")).containsExactly("10000", "8000", "5000");
    }

    /** Sends with a deadline {@code left} bound to this thread, as the engine binds one while work runs. */
    @SuppressWarnings("try")
    private IdempotentResponse<String> sendWhileBound(Duration left) throws Exception {
        try (Deadline.Scope scope = Deadline.after(left, time).bind()) {
            return client(Duration.ofSeconds(60)).build().send(post("/pay").build(), BodyHandlers.ofString());
        }
    }

    @Test
    void aDeadlineBoundToTheCallersThreadBoundsTheSequence() throws Exception {
        server.script("/pay", status(503, "Retry-After", "2"), body(200, "text/plain", "done"));

        IdempotentResponse<String> r = sendWhileBound(Duration.ofSeconds(3));

        assertThat(server.timeouts("/pay")).containsExactly("3000", "1000");
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void aRetryThatWouldOutliveTheCallersDeadlineIsNotMade() throws Exception {
        server.script("/pay", status(503, "Retry-After", "5"), body(200, "text/plain", "done"));

        IdempotentResponse<String> r = sendWhileBound(Duration.ofSeconds(3));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(time.sleeps()).isEmpty();
    }

    @Test
    void aBudgetTheRequestCarriesBoundsTheSequenceAndIsReplacedOnEveryAttempt() throws Exception {
        server.script("/pay", status(503, "Retry-After", "1"), body(200, "text/plain", "done"));

        client(Duration.ofSeconds(60)).build().send(post("/pay").header("X-Request-Timeout", "4S").build(),
                BodyHandlers.ofString());

        assertThat(server.timeouts("/pay")).containsExactly("4000", "3000");
    }

    @Test
    void aMalformedBudgetOnTheRequestIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> client(Duration.ofSeconds(60)).build().send(
                post("/pay").header("X-Request-Timeout", "-5").build(), BodyHandlers.ofString()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("X-Request-Timeout");
        assertThat(server.timeouts("/pay")).isEmpty();
    }

    @Test
    void theHeaderCanBeLeftOutForServersThatReadItOtherwise() throws Exception {
        server.script("/pay", status(503, "Retry-After", "1"), body(200, "text/plain", "done"));

        client(Duration.ofSeconds(60)).withoutRequestTimeoutHeader().build()
                .send(post("/pay").build(), BodyHandlers.ofString());

        assertThat(server.timeouts("/pay")).containsExactly("<none>", "<none>");
    }

    @Test
    @SuppressWarnings("try")
    void theGenericRetrierStopsAtTheCallersDeadlineToo() throws Exception {
        Retrier retrier = Retrier.builder().budget(RetryBudget.unlimited()).policy(time.policy().maxAttempts(10)
                .baseDelay(Duration.ofMillis(400)).maxDelay(Duration.ofSeconds(1)).deadline(Duration.ofSeconds(60))
                .random(FixedRandom.highest()).build()).build();
        AtomicInteger calls = new AtomicInteger();

        try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(1), time).bind()) {
            assertThatThrownBy(() -> retrier.call(() -> {
                calls.incrementAndGet();
                throw new IOException("down (scripted)");
            })).isInstanceOf(IOException.class);
        }

        // 400 ms, then a retry after 800 ms would end past the 1 s the caller has left.
        assertThat(calls).hasValue(2);
        assertThat(time.sleeps()).containsExactly(Duration.ofMillis(400));
    }
}
