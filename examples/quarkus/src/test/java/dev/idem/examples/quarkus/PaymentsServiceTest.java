package dev.idem.examples.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The example as its README runs it with curl, over HTTP: a replay, a 422, a 409, API keys, health
 * and metrics, all from the extension's defaults and the example's application.properties.
 */
@QuarkusTest
class PaymentsServiceTest {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        String base = "http://127.0.0.1:" + ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> charge(String apiKey, String key, String body) throws Exception {
        return send("POST", "/charges", body, "X-Api-Key", apiKey, "Idempotency-Key", key);
    }

    private static String body(String reference) {
        return "{\"customer\":\"cus_1\",\"amountCents\":1250,\"reference\":\"" + reference + "\"}";
    }

    @Test
    void aRetryReplaysTheFirstChargeAndAnotherCallerGetsItsOwn() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = GatedProvider.CHARGES.get();
        HttpResponse<String> first = charge("k1", key, body("order-1"));
        HttpResponse<String> retry = charge("k1", key, body("order-1"));
        HttpResponse<String> otherCaller = charge("k2", key, body("order-1"));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotency-Status")).hasValue("stored");
        assertThat(first.body()).contains("\"customer\":\"cus_1\"").contains("\"id\":\"ch_test_");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(otherCaller.headers().firstValue("Idempotency-Status")).hasValue("stored");
        assertThat(GatedProvider.CHARGES.get() - before).isEqualTo(2);
        assertThat(send("GET", "/charges", null, "X-Api-Key", "k1").body()).contains(first.body());
    }

    @Test
    void theSameKeyWithAnotherBodyIs422() throws Exception {
        String key = UUID.randomUUID().toString();
        charge("k1", key, body("order-2"));
        HttpResponse<String> reused = charge("k1", key, body("order-3"));

        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(reused.body()).contains("key-reused");
    }

    @Test
    void aRetryWhileTheFirstCallRunsIs409WithRetryAfter() throws Exception {
        String key = UUID.randomUUID().toString();
        GatedProvider.entered = new CountDownLatch(1);
        GatedProvider.gate = new CountDownLatch(1);
        try {
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return charge("k1", key, body("order-4"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(GatedProvider.entered.await(20, TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> duplicate = charge("k1", key, body("order-4"));
            GatedProvider.gate.countDown();

            assertThat(duplicate.statusCode()).isEqualTo(409);
            assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();
            assertThat(duplicate.body()).contains("request-in-progress");
            assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        } finally {
            GatedProvider.gate.countDown();
        }
    }

    @Test
    void callersNeedAKnownApiKeyAndAKey() throws Exception {
        assertThat(send("POST", "/charges", body("x"), "Idempotency-Key", "k").statusCode()).isEqualTo(401);
        HttpResponse<String> noKey = send("POST", "/charges", body("x"), "X-Api-Key", "k1");
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.body()).contains("missing-key");
    }

    @Test
    void healthAndMetricsShowIdem() throws Exception {
        charge("k1", UUID.randomUUID().toString(), body("order-5"));

        HttpResponse<String> health = send("GET", "/q/health/ready", null);
        HttpResponse<String> metrics = send("GET", "/q/metrics", null);

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"name\": \"idem\"").contains("\"store\": \"jdbc\"");
        assertThat(metrics.body()).contains("idem_events_total").contains("outcome=\"executed\"");
    }
}
