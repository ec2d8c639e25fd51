package dev.idem.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The example as a user runs it, on Spring Boot 4: a retried POST is replayed and charges once. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class PaymentsApplicationTest {
    @LocalServerPort
    int port;

    @Autowired
    ChargeService charges;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> post(String apiKey, String key, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/charges"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("X-Api-Key", apiKey)
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aCleanStartLogsNoWarning(CapturedOutput output) {
        assertThat(output.getAll()).contains("Started PaymentsApplicationTest");
        assertThat(output.getAll().lines().takeWhile(l -> !l.contains("Started PaymentsApplicationTest"))
                .filter(l -> l.contains(" WARN ") || l.contains("WARNING"))).as("warnings at startup").isEmpty();
    }

    @Test
    void aRetriedChargeIsReplayedAndChargesOnceAndAnotherCallerNeverSeesIt() throws Exception {
        String body = "{\"customer\":\"cus_1\",\"amountCents\":1250,\"reference\":\"order-77\"}";
        HttpResponse<String> first = post("k1", "k-1", body);
        HttpResponse<String> retry = post("k1", "k-1", body);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(post("k1", "k-1", body.replace("1250", "9999")).statusCode()).isEqualTo(422);
        assertThat(charges.all()).hasSize(1);

        // Another API key with the same key and body is another caller: its own charge, never the first one's.
        HttpResponse<String> other = post("k2", "k-1", body);
        assertThat(other.statusCode()).isEqualTo(201);
        assertThat(other.headers().firstValue("Idempotency-Status")).hasValue("stored");
        assertThat(other.body()).isNotEqualTo(first.body());
        assertThat(charges.all()).hasSize(2);
        // An unknown key is refused before idem scopes anything by it.
        assertThat(post("forged", "k-1", body).statusCode()).isEqualTo(401);

        HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"idem\"").contains("UP");
    }
}
