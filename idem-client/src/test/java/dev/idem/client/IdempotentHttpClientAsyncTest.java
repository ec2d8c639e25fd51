package dev.idem.client;

import static dev.idem.client.FaultServer.body;
import static dev.idem.client.FaultServer.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.time.Sleeper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The async API against a real loopback server injecting faults; waits are virtual. */
@Timeout(20)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentHttpClientAsyncTest {

    private static final long WAIT_SECONDS = 10;

    private final HttpClient http =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(IdempotentHttpClientTest.ATTEMPT_TIMEOUT)
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

    private IdempotentHttpClient client(Sleeper sleeper) {
        RetryPolicy policy =
                time.policy()
                        .sleeper(sleeper)
                        .maxAttempts(4)
                        .baseDelay(Duration.ofMillis(100))
                        .maxDelay(Duration.ofSeconds(1))
                        .random(FixedRandom.highest())
                        .build();
        return IdempotentHttpClient.newBuilder(http)
                .policy(policy)
                .budget(RetryBudget.unlimited())
                .listener(listener)
                .build();
    }

    private static HttpRequest post(URI uri) {
        return HttpRequest.newBuilder(uri)
                .timeout(IdempotentHttpClientTest.ATTEMPT_TIMEOUT)
                .POST(BodyPublishers.ofString("{\"amount\":100}"))
                .build();
    }

    @Test
    void retriesThroughFaultsWithTheSameKeyAndReportsTheReplay() throws Exception {
        server.script(
                "/pay",
                status(503, "Retry-After", "1"),
                server.hang(),
                body(200, "text/plain", "stored", "Idempotent-Replayed", "true"));
        IdempotentResponse<String> r =
                client(time)
                        .sendAsync(post(server.uri("/pay")), BodyHandlers.ofString())
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(r.replayed()).isTrue();
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(200));
        assertThat(server.keys("/pay")).hasSize(3).containsOnly(IdempotencyKeyHeader.format(r.idempotencyKey()));
    }

    @Test
    void doesNotRetryUnprocessableEntity() throws Exception {
        server.script("/pay", status(422), status(200));
        IdempotentResponse<String> r =
                client(time)
                        .sendAsync(post(server.uri("/pay")), BodyHandlers.ofString())
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(server.keys("/pay")).hasSize(1);
    }

    @Test
    void connectFailureCompletesTheFutureExceptionallyAfterMaxAttempts() throws Exception {
        URI closed = URI.create("http://127.0.0.1:" + IdempotentHttpClientTest.freePort() + "/pay");
        CompletableFuture<IdempotentResponse<String>> future =
                client(time).sendAsync(post(closed), BodyHandlers.ofString());
        assertThatThrownBy(() -> future.get(WAIT_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(ConnectException.class);
        assertThat(listener.events()).filteredOn(e -> e.startsWith("attempt")).hasSize(4);
        assertThat(listener.events()).last().isEqualTo("gave up after 4: MAX_ATTEMPTS");
    }

    @Test
    void cancellingTheFutureStopsFurtherAttempts() throws Exception {
        server.script("/pay", status(503));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        CountDownLatch waiting = new CountDownLatch(1);
        Sleeper gated =
                new Sleeper() {
                    @Override
                    public void sleep(Duration duration) {
                        throw new AssertionError("async calls must not block to wait");
                    }

                    @Override
                    public CompletableFuture<Void> delay(Duration duration) {
                        waiting.countDown();
                        return gate;
                    }
                };
        CompletableFuture<IdempotentResponse<String>> future =
                client(gated).sendAsync(post(server.uri("/pay")), BodyHandlers.ofString());
        assertThat(waiting.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        future.cancel(false);
        gate.complete(null); // runs the would-be next attempt inline
        assertThat(server.keys("/pay")).hasSize(1);
        assertThatThrownBy(future::join).isInstanceOf(CancellationException.class);
    }
}
