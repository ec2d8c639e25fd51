package dev.idem.client;

import static dev.idem.client.FaultServer.body;
import static dev.idem.client.FaultServer.closeMidResponse;
import static dev.idem.client.FaultServer.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKeyHeader;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sync API against a real loopback server injecting faults; waits are virtual. */
@Timeout(20)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentHttpClientTest {

    // Only the hang() scripts are meant to time out. 300 ms was short enough for a loopback
    // answer to miss it on a 2-core machine at load 20 (the server thread not yet scheduled):
    // the client then retried, and the test saw one attempt more than the server had recorded.
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(2);
    static final String PROBLEM_JSON = "application/problem+json";
    static final String IN_PROGRESS =
            "{\"type\":\"https://idem.dev/problems/request-in-progress\",\"title\":\"Request in progress\","
                    + "\"status\":409}";
    static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT)
                    .withZone(ZoneOffset.UTC);

    private final HttpClient http =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(ATTEMPT_TIMEOUT)
                    .build();

    private FakeTime time;
    private RecordingListener listener;
    private FaultServer server;

    @BeforeEach
    void setUp() throws IOException {
        time = new FakeTime();
        listener = new RecordingListener();
        server = FaultServer.start();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private RetryPolicy.Builder policy() {
        return time.policy()
                .maxAttempts(4)
                .baseDelay(Duration.ofMillis(100))
                .maxDelay(Duration.ofSeconds(1))
                .deadline(Duration.ofSeconds(60))
                .random(FixedRandom.highest());
    }

    private IdempotentHttpClient client(RetryPolicy policy) {
        return IdempotentHttpClient.newBuilder(http)
                .policy(policy)
                .budget(RetryBudget.unlimited())
                .listener(listener)
                .build();
    }

    private IdempotentHttpClient client() {
        return client(policy().build());
    }

    private static HttpRequest post(URI uri) {
        return HttpRequest.newBuilder(uri)
                .timeout(ATTEMPT_TIMEOUT)
                .POST(BodyPublishers.ofString("{\"amount\":100}"))
                .build();
    }

    private IdempotentResponse<String> send(String path) throws Exception {
        return client().send(post(server.uri(path)), BodyHandlers.ofString());
    }

    private void assertOneKeyOn(String path, int attempts, String key) {
        // On the wire: the draft's Structured Field string, the client's default.
        assertThat(server.keys(path)).hasSize(attempts).containsOnly(IdempotencyKeyHeader.format(key));
    }

    @Test
    void retries503HonoringRetryAfterInBothFormsWithTheSameKey() throws Exception {
        server.script(
                "/pay",
                status(503, "Retry-After", "2"),
                exchange ->
                        status(503, "Retry-After", IMF_FIXDATE.format(time.clock().instant().plusSeconds(5)))
                                .respond(exchange),
                body(200, "text/plain", "done"));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("done");
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(r.replayed()).isFalse();
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5));
        assertOneKeyOn("/pay", 3, r.idempotencyKey());
        assertThat(r.idempotencyKey()).matches("[0-9a-f-]{36}");
    }

    @Test
    void retries429WithBackoff() throws Exception {
        server.script("/pay", status(429), status(200));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(time.sleeps()).containsExactly(Duration.ofMillis(100));
        assertOneKeyOn("/pay", 2, r.idempotencyKey());
    }

    @Test
    void retriesAnAttemptThatTimedOut() throws Exception {
        server.script("/pay", server.hang(), status(201));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(listener.events()).anyMatch(e -> e.startsWith("retry after 1") && e.contains("timeout"));
        assertOneKeyOn("/pay", 2, r.idempotencyKey());
    }

    @Test
    void retriesAConnectionClosedMidResponse() throws Exception {
        server.script("/pay", closeMidResponse(), body(200, "text/plain", "complete"));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.body()).isEqualTo("complete");
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(listener.events())
                .anyMatch(e -> e.startsWith("retry after 1") && e.contains("I/O failure"));
        assertOneKeyOn("/pay", 2, r.idempotencyKey());
    }

    @Test
    void retries409InProgressThenReportsTheReplay() throws Exception {
        server.script(
                "/pay",
                body(409, PROBLEM_JSON, IN_PROGRESS, "Retry-After", "1"),
                body(200, "text/plain", "stored", "Idempotency-Status", "replayed"));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.replayed()).isTrue();
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(1));
        assertOneKeyOn("/pay", 2, r.idempotencyKey());
    }

    @Test
    void retries409InProgressRecognizedByItsProblemTypeAlone() throws Exception {
        server.script(
                "/pay",
                body(409, PROBLEM_JSON, IN_PROGRESS),
                body(200, "text/plain", "stored", "Idempotent-Replayed", "true"));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.replayed()).isTrue();
        assertThat(r.attempts()).isEqualTo(2);
    }

    @Test
    void doesNotRetryARealConflict() throws Exception {
        server.script(
                "/pay",
                body(409, PROBLEM_JSON, "{\"type\":\"https://idem.dev/problems/key-reused\"}"),
                status(200));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(server.keys("/pay")).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 422})
    void doesNotRetryClientErrors(int code) throws Exception {
        server.script("/pay", status(code), status(200));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(code);
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(server.keys("/pay")).hasSize(1);
        assertThat(time.sleeps()).isEmpty();
    }

    @Test
    void persistentFailureStopsAfterMaxAttemptsAndReturnsTheLastResponse() throws Exception {
        server.script("/pay", status(503));
        IdempotentResponse<String> r = send("/pay");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.attempts()).isEqualTo(4);
        assertThat(time.sleeps())
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        assertOneKeyOn("/pay", 4, r.idempotencyKey());
        assertThat(listener.events()).last().isEqualTo("gave up after 4: MAX_ATTEMPTS");
    }

    @Test
    void connectFailureIsThrownAfterMaxAttempts() throws Exception {
        URI closed = URI.create("http://127.0.0.1:" + freePort() + "/pay");
        assertThatThrownBy(() -> client().send(post(closed), BodyHandlers.ofString()))
                .isInstanceOf(ConnectException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(3));
        assertThat(listener.events()).filteredOn(e -> e.startsWith("attempt")).hasSize(4);
    }

    @Test
    void bareKeyHeaderSendsTheTokenWithoutQuotes() throws Exception {
        server.script("/pay", status(503), status(200));
        IdempotentHttpClient bare = IdempotentHttpClient.newBuilder(client().httpClient())
                .policy(client().policy())
                .bareKeyHeader()
                .build();
        IdempotentResponse<String> r = bare.send(post(server.uri("/pay")), BodyHandlers.ofString());
        assertThat(server.keys("/pay")).hasSize(2).containsOnly(r.idempotencyKey());
        assertThat(r.idempotencyKey()).doesNotContain("\"");
    }

    @Test
    void aQuotedKeyOnTheRequestIsTheSameKey() throws Exception {
        server.script("/pay", status(200));
        HttpRequest request =
                HttpRequest.newBuilder(post(server.uri("/pay")), (n, v) -> true)
                        .header("Idempotency-Key", "\"order-43\"")
                        .build();
        IdempotentResponse<String> r = client().send(request, BodyHandlers.ofString());
        assertThat(r.idempotencyKey()).isEqualTo("order-43");
        assertOneKeyOn("/pay", 1, "order-43");
    }

    @Test
    void keyAlreadyOnTheRequestIsKeptAndNotDuplicated() throws Exception {
        server.script("/pay", status(503), status(200));
        HttpRequest request =
                HttpRequest.newBuilder(post(server.uri("/pay")), (n, v) -> true)
                        .header("Idempotency-Key", "order-42")
                        .build();
        IdempotentResponse<String> r = client().send(request, BodyHandlers.ofString());
        assertThat(r.idempotencyKey()).isEqualTo("order-42");
        assertOneKeyOn("/pay", 2, "order-42");
    }

    @Test
    void deadlineShortensTheAttemptTimeout() {
        server.script("/slow", server.hang());
        IdempotentHttpClient client =
                client(policy().maxAttempts(1).baseDelay(Duration.ofMillis(10)).deadline(ATTEMPT_TIMEOUT).build());
        HttpRequest patient =
                HttpRequest.newBuilder(server.uri("/slow"))
                        .timeout(Duration.ofMinutes(5))
                        .POST(BodyPublishers.ofString("x"))
                        .build();
        // Without the deadline, the attempt would wait five minutes and the test's timeout would fail it.
        assertThatThrownBy(() -> client.send(patient, BodyHandlers.ofString()))
                .isInstanceOf(HttpTimeoutException.class);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
