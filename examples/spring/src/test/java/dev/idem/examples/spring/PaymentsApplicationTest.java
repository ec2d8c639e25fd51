package dev.idem.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The example as a user runs it: a retried POST is replayed and charges once. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PaymentsApplicationTest {
    @LocalServerPort
    int port;

    @Autowired
    ChargeService charges;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> post(String key, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/charges"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("X-Api-Key", "secret-1")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRetriedChargeIsReplayedAndChargesOnce() throws Exception {
        String body = "{\"customer\":\"cus_1\",\"amountCents\":1250,\"reference\":\"order-77\"}";
        HttpResponse<String> first = post("k-1", body);
        HttpResponse<String> retry = post("k-1", body);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(post("k-1", body.replace("1250", "9999")).statusCode()).isEqualTo(422);
        assertThat(charges.all()).hasSize(1);
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"idem\"").contains("UP");
    }
}
