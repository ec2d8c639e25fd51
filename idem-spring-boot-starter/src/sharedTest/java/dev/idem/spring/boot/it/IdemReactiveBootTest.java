package dev.idem.spring.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.webflux.IdempotencyWebFilter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * The shared Boot suite's reactive application ({@link ReactiveBootApp}) on Reactor Netty: the
 * starter's WebFlux filter and {@code @Idempotent} methods returning a {@code Mono}, on each
 * Boot generation.
 */
@SpringBootTest(classes = ReactiveBootApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.main.web-application-type=reactive",
            "idem.http.routes=/orders/**",
            "idem.purge.enabled=false",
            "spring.main.banner-mode=off"})
class IdemReactiveBootTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    private HttpResponse<String> post(String path, String user, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user + ":pw").getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anIdempotentMethodReturningAMonoRunsOnceAndReplaysItsValue() throws Exception {
        String ref = "p-" + UUID.randomUUID();
        List<HttpResponse<String>> three = List.of(post("/mono-payments/" + ref, "alice", null),
                post("/mono-payments/" + ref, "alice", null), post("/mono-payments/" + ref, "alice", null));

        // Before: 201, 500, 500 (the replay decoded the stored Mono). Now the value is what is stored.
        assertThat(three).extracting(HttpResponse::statusCode).containsOnly(201);
        assertThat(three).extracting(HttpResponse::body).containsOnly(three.get(0).body());
        assertThat(three.get(0).body()).contains("\"ref\":\"" + ref + "\"").contains("\"run\":1");
        assertThat(ReactiveBootApp.runs("mono " + ref)).isEqualTo(1);
        // Bob's key space is his own: Spring Security's reactive user scopes the call.
        assertThat(post("/mono-payments/" + ref, "bob", null).body()).contains("\"run\":2");
    }

    @Test
    void aMonoThatFailsReleasesItsKeySoTheRetryRuns() throws Exception {
        String ref = "f-" + UUID.randomUUID();
        HttpResponse<String> failed = post("/mono-flaky/" + ref, "alice", null);
        HttpResponse<String> retried = post("/mono-flaky/" + ref, "alice", null);
        HttpResponse<String> replayed = post("/mono-flaky/" + ref, "alice", null);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed.body()).isEqualTo(retried.body());
        assertThat(ReactiveBootApp.runs("flaky " + ref)).isEqualTo(2);
    }

    @Test
    void theStarterCoversReactiveRoutesWithTheWebFilter() throws Exception {
        assertThat(context.getBeansOfType(IdempotencyWebFilter.class)).hasSize(1);
        String key = UUID.randomUUID().toString();
        String id = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/orders/" + id + "/confirm", "alice", key);
        HttpResponse<String> second = post("/orders/" + id + "/confirm", "alice", key);
        HttpResponse<String> noKey = post("/orders/" + id + "/confirm", "alice", null);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotency-Status")).hasValue("stored");
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(ReactiveBootApp.runs("order " + id)).isEqualTo(1);
    }
}
