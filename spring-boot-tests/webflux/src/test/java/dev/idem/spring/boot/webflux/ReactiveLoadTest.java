package dev.idem.spring.boot.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;

/**
 * The WebFlux application under a burst, as it was driven from outside: about 400 calls at once
 * from two users, over the filter ({@code /orders/{id}/confirm}), a {@code Mono} and a
 * {@code CompletableFuture} {@code @Idempotent} method (memory store, the default
 * {@code idem.max-async-calls}), four copies of each intent. Every call is answered (201, a replay,
 * or 409 for a copy that came while its original ran) within the bound, and every intent's effect
 * ran exactly once.
 */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "idem.store.kind=memory",
        "idem.http.routes=/orders/**",
        "spring.main.banner-mode=off"})
class ReactiveLoadTest {
    private static final int INTENTS_PER_USER_AND_KIND = 17;
    private static final int COPIES = 4;

    @Autowired
    ApplicationContext context;

    @Test
    void fourHundredSimultaneousCallsAreAllAnsweredAndEachEffectRunsOnce() throws Exception {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        Map<String, String> effects = new HashMap<>();
        // One JDK client holding every connection, as in the run from outside that lost answers.
        List<HttpClient> clients = List.of(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30)).build());
        int n = 0;
        for (String user : List.of("alice", "bob")) {
            for (int i = 0; i < INTENTS_PER_USER_AND_KIND; i++) {
                String order = run + "-" + user + "-" + i;
                String ref = "load-" + order;
                Map<String, String> kinds = Map.of(
                        "/orders/" + order + "/confirm", "order " + order,
                        "/charges/mono", "mono " + ref,
                        "/charges/future", "future " + ref);
                for (Map.Entry<String, String> kind : kinds.entrySet()) {
                    effects.put(kind.getValue(), kind.getKey());
                    for (int c = 0; c < COPIES; c++) {
                        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                        + kind.getKey())).timeout(Duration.ofSeconds(120))
                                .header("Content-Type", "application/json")
                                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                                        (user + ":pw").getBytes(StandardCharsets.UTF_8)))
                                .header("Idempotency-Key", "k-" + order)
                                .POST(HttpRequest.BodyPublishers.ofString("{\"reference\":\"" + ref
                                        + "\",\"amount\":7}")).build();
                        calls.add(clients.get(n++ % clients.size()).sendAsync(request,
                                HttpResponse.BodyHandlers.ofString()));
                    }
                }
            }
        }

        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).get(180, TimeUnit.SECONDS);
        assertThat(calls).hasSize(2 * INTENTS_PER_USER_AND_KIND * 3 * COPIES);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            HttpResponse<String> r = call.join();
            assertThat(r.statusCode()).as(r.uri() + ": " + r.body()).isIn(201, 409);
        }
        effects.forEach((effect, path) -> assertThat(ReactiveApp.runs(effect)).as(effect).isEqualTo(1));
    }
}
