package dev.idem.spring.boot.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.webflux.IdempotencyWebFilter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Sinks;

/**
 * The WebFlux contract suite on a reactive application with no servlet API anywhere on its
 * class path ({@link ReactiveApp} on Reactor Netty behind reactive Spring Security), as users
 * run it: routes, scoping, replays, 409, 422 and 413, metric names from the pattern WebFlux
 * matched, streaming responses refused, a handler stopped when its client leaves, and
 * {@code @Idempotent} on {@code Mono}, {@code CompletionStage}, {@code CompletableFuture} and
 * plain methods. The start itself must log no warning.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "idem.store.kind=memory",
        "idem.http.routes=/orders/**,/open/**,/feeds/**",
        "idem.http.principal-header=X-Api-Key",
        "idem.max-request-bytes=4096",
        "idem.max-async-calls=4",
        "spring.main.banner-mode=off"})
class ReactiveApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Autowired
    ApplicationContext context;

    @Autowired
    MeterRegistry meters;

    private int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private HttpRequest.Builder request(String path, String user, String apiKey, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port() + path))
                .timeout(WAIT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":pw").getBytes(StandardCharsets.UTF_8)));
        }
        if (apiKey != null) {
            b.header("X-Api-Key", apiKey);
        }
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return b;
    }

    private HttpResponse<String> post(String path, String user, String apiKey, String key, String body)
            throws Exception {
        return http.send(request(path, user, apiKey, key, body).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String user, String key) throws Exception {
        return post(path, user, null, key, "{}");
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    private static String status(HttpResponse<String> r) {
        return r.headers().firstValue("Idempotency-Status").orElse("none");
    }

    @Test
    void theApplicationRunsOnNettyWithNoServletApiAnywhereOnItsClassPath(CapturedOutput output) {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(ClassUtils.isPresent("jakarta.servlet.ServletRequest", loader)).isFalse();
        assertThat(ClassUtils.isPresent("jakarta.servlet.Filter", loader)).isFalse();
        assertThat(ClassUtils.isPresent("javax.servlet.ServletRequest", loader)).isFalse();
        assertThat(((WebServerApplicationContext) context).getWebServer().getClass().getName()).contains("Netty");
        assertThat(context.getBeansOfType(IdempotencyWebFilter.class)).hasSize(1);
        // A clean start logs no warning: none from idem, none about idem's beans.
        assertThat(output.getAll()).contains("Started ReactiveApplicationTest");
        assertThat(output.getAll().lines().takeWhile(l -> !l.contains("Started ReactiveApplicationTest"))
                .filter(l -> l.contains(" WARN ") || l.contains("WARNING"))).as("warnings at startup").isEmpty();
    }

    @Test
    void aCoveredRouteStoresReplaysAndKeepsOneRecordPerPath() throws Exception {
        String key = key();
        String id = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/orders/" + id + "/confirm", "alice", key);
        HttpResponse<String> second = post("/orders/" + id + "/confirm", "alice", key);
        HttpResponse<String> otherOrder = post("/orders/other-" + id + "/confirm", "alice", key);
        HttpResponse<String> noKey = post("/orders/" + id + "/confirm", "alice", null);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(status(first)).isEqualTo("stored");
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(status(second)).isEqualTo("replayed");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(status(otherOrder)).isEqualTo("stored");
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(noKey.body()).contains("missing-key");
        assertThat(ReactiveApp.runs("order " + id)).isEqualTo(1);
    }

    @Test
    void oneCallersKeyNeverReachesAnotherCallersOutcome() throws Exception {
        String key = key();
        String id = UUID.randomUUID().toString();
        HttpResponse<String> alice = post("/orders/" + id + "/confirm", "alice", key);
        HttpResponse<String> bob = post("/orders/" + id + "/confirm", "bob", key);
        assertThat(List.of(status(alice), status(bob))).containsOnly("stored");
        assertThat(bob.body()).isNotEqualTo(alice.body());

        String note = "{\"text\":\"n-" + key + "\"}";
        HttpResponse<String> k1 = post("/open/notes", null, "k1-" + key, key, note);
        HttpResponse<String> k2 = post("/open/notes", null, "k2-" + key, key, note);
        HttpResponse<String> k1Again = post("/open/notes", null, "k1-" + key, key, note);
        HttpResponse<String> aliceWithK1 = post("/open/notes", "alice", "k1-" + key, key, note);
        HttpResponse<String> nobody = post("/open/notes", null, null, key, note);
        assertThat(List.of(status(k1), status(k2), status(k1Again), status(aliceWithK1)))
                .containsExactly("stored", "stored", "replayed", "stored");
        assertThat(List.of(k1.body(), k2.body(), aliceWithK1.body())).doesNotHaveDuplicates();
        assertThat(nobody.statusCode()).isEqualTo(401);
        assertThat(nobody.body()).contains("unauthenticated");
    }

    @Test
    void aDuplicateWhileTheFirstRunsIs409ThenReplays() throws Exception {
        String key = key();
        String id = "held-" + UUID.randomUUID();
        Sinks.Empty<Void> held = Sinks.empty();
        ReactiveApp.HELD.put("order " + id, held);
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(
                request("/orders/" + id + "/confirm", "alice", null, key, "{}").build(),
                HttpResponse.BodyHandlers.ofString());
        awaitRuns("order " + id, 1);

        HttpResponse<String> duplicate = post("/orders/" + id + "/confirm", "alice", key);
        held.tryEmitEmpty();
        HttpResponse<String> created = first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        HttpResponse<String> replay = post("/orders/" + id + "/confirm", "alice", key);

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).isPresent();
        assertThat(duplicate.body()).contains("request-in-progress");
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(status(replay)).isEqualTo("replayed");
        assertThat(replay.body()).isEqualTo(created.body());
        assertThat(ReactiveApp.runs("order " + id)).isEqualTo(1);
    }

    @Test
    void aKeyReusedForAnotherRequestIs422AndATooLargeBodyIs413() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/open/notes", null, "k-" + key, key, "{\"text\":\"a-" + key + "\"}");
        HttpResponse<String> reused = post("/open/notes", null, "k-" + key, key, "{\"text\":\"b-" + key + "\"}");
        HttpResponse<String> large = post("/open/notes", null, "k-" + key, key(),
                "{\"text\":\"" + "x".repeat(5000) + "\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.body()).contains("key-reused");
        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(large.body()).contains("request-too-large");
        assertThat(ReactiveApp.runs("note b-" + key)).isZero();
    }

    @Test
    void metricsAreNamedAfterThePatternWebFluxMatchedNeverTheRawPath() throws Exception {
        String key = key();
        for (String id : List.of("m1", "m2", "m3")) {
            assertThat(post("/orders/" + id + "-" + key + "/confirm", "alice", key).statusCode()).isEqualTo(201);
        }
        assertThat(post("/orders/m1-" + key + "/confirm", "alice", key).statusCode()).isEqualTo(201);

        String route = "POST /orders/{id}/confirm";
        List<String> operations = new ArrayList<>();
        for (Meter m : meters.getMeters()) {
            String op = m.getId().getTag("idem.operation");
            if (op != null) {
                operations.add(op);
            }
        }
        assertThat(operations).contains(route).noneMatch(op -> op.contains(key));
        Timer executed = meters.find("idem.execution").tags("idem.operation", route, "idem.outcome", "executed",
                "idem.store.kind", "memory").timer();
        assertThat(executed).isNotNull();
        assertThat(executed.count()).isGreaterThanOrEqualTo(3);
        assertThat(meters.find("idem.execution").tags("idem.operation", route, "idem.outcome", "replayed").timer())
                .isNotNull();
    }

    @Test
    void idempotentMethodsFindTheCallerOnEveryReturnType() throws Exception {
        for (String kind : List.of("mono", "stage", "future", "plain")) {
            String ref = kind + "-" + key();
            String body = "{\"reference\":\"" + ref + "\",\"amount\":100}";
            HttpResponse<String> first = post("/charges/" + kind, "alice", null, null, body);
            HttpResponse<String> again = post("/charges/" + kind, "alice", null, null, body);
            HttpResponse<String> bob = post("/charges/" + kind, "bob", null, null, body);
            HttpResponse<String> reused = post("/charges/" + kind, "alice", null, null,
                    "{\"reference\":\"" + ref + "\",\"amount\":999}");

            assertThat(first.statusCode()).as(kind).isEqualTo(201);
            assertThat(first.body()).as(kind).contains("\"kind\":\"" + kind + "\"");
            assertThat(again.statusCode()).as(kind).isEqualTo(201);
            assertThat(again.body()).as(kind).isEqualTo(first.body());
            // Bob's key space is his own: never alice's charge.
            assertThat(bob.statusCode()).as(kind).isEqualTo(201);
            assertThat(bob.body()).as(kind).isNotEqualTo(first.body());
            assertThat(reused.statusCode()).as(kind).isEqualTo(422);
            assertThat(reused.headers().firstValue("Content-Type")).as(kind)
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
            assertThat(ReactiveApp.runs(kind + " " + ref)).as(kind).isEqualTo(2);
        }
    }

    @Test
    void aStreamingResponseOnACoveredRouteIsRefusedAtOnceAndTheStreamStops() throws Exception {
        HttpResponse<String> stream = http.send(request("/feeds/ticks", "alice", null, key(), "{}")
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(stream.statusCode()).isEqualTo(500);
        assertThat(stream.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(stream.body()).contains("streaming-response").contains("idem.http.routes");
        // The stream was never started, or was cancelled: nothing keeps emitting after the answer.
        Awaitility.await().atMost(WAIT).untilAsserted(() -> assertThat(ReactiveApp.STREAMS_ENDED.get())
                .as("streams ended").isEqualTo(ReactiveApp.STREAMS_STARTED.get()));
    }

    @Test
    void anEndlessBodyOnACoveredRouteIsCutAtTheStoresLimitAndStops() throws Exception {
        String key = key();
        HttpResponse<String> endless = post("/feeds/everything", "alice", key);
        int started = ReactiveApp.STREAMS_STARTED.get();
        HttpResponse<String> again = post("/feeds/everything", "alice", key);

        // Answered as too large to store, on every call, without running the handler again.
        assertThat(endless.statusCode()).isEqualTo(500);
        assertThat(endless.body()).contains("outcome-not-stored");
        assertThat(again.statusCode()).isEqualTo(500);
        assertThat(again.body()).contains("outcome-not-stored");
        assertThat(ReactiveApp.STREAMS_STARTED.get()).isEqualTo(started);
        Awaitility.await().atMost(WAIT).untilAsserted(() -> assertThat(ReactiveApp.STREAMS_ENDED.get())
                .as("streams ended").isEqualTo(ReactiveApp.STREAMS_STARTED.get()));
    }

    @Test
    void aHandlerWhoseClientLeftIsStoppedAndItsSlotComesBack() throws Exception {
        // idem.max-async-calls=4: handlers that kept running (and their slots) after their
        // clients left would leave none for the next call after four such requests.
        String key = key();
        List<String> gone = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String id = "gone-" + i + "-" + key;
            gone.add(id);
            Sinks.Empty<Void> held = Sinks.empty();
            ReactiveApp.HELD.put("order " + id, held);
            CompletableFuture<HttpResponse<String>> left = http.sendAsync(
                    request("/orders/" + id + "/confirm", "alice", null, key, "{}").build(),
                    HttpResponse.BodyHandlers.ofString());
            awaitRuns("order " + id, 1);
            left.cancel(true);
            Awaitility.await("the handler of a client that left to stop").atMost(WAIT)
                    .until(() -> held.currentSubscriberCount() == 0);
        }

        Awaitility.await("a free slot for a new call").atMost(WAIT).until(() -> post("/orders/fresh-"
                + UUID.randomUUID() + "/confirm", "alice", key()).statusCode() == 201);
        // The stopped handler's claim is kept until its lease lapses, as after a crash: its effect
        // may have been under way. The retry is told to come back, and nothing runs twice.
        HttpResponse<String> retry = post("/orders/" + gone.get(0) + "/confirm", "alice", key);
        assertThat(retry.statusCode()).isEqualTo(409);
        assertThat(ReactiveApp.runs("order " + gone.get(0))).isEqualTo(1);
    }

    @Test
    void aScopeExpressionNamingNoCallerAnswers401AsAMissingPrincipalDoes() throws Exception {
        String ref = "anon-" + key();
        HttpResponse<String> future = post("/anon/charges/future", null, null, null,
                "{\"reference\":\"" + ref + "\",\"amount\":5}");

        // Not a 500 with SpEL's EL1007E: the method names #caller.name and the anonymous caller has none.
        assertThat(future.statusCode()).as(future.body()).isEqualTo(401);
        assertThat(future.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(ReactiveApp.runs("future " + ref)).isZero();
    }

    @Test
    void aMonoMethodScopesAnAnonymousCallerByThePrincipalHeaderAsTheFilterDoes() throws Exception {
        String ref = "api-" + key();
        String body = "{\"reference\":\"" + ref + "\",\"amount\":5}";
        HttpResponse<String> first = post("/anon/charges/mono", null, "key-a", null, body);
        HttpResponse<String> again = post("/anon/charges/mono", null, "key-a", null, body);
        HttpResponse<String> otherKey = post("/anon/charges/mono", null, "key-b", null, body);
        HttpResponse<String> none = post("/anon/charges/mono", null, null, null, body);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(otherKey.statusCode()).isEqualTo(201);
        assertThat(otherKey.body()).isNotEqualTo(first.body());
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(ReactiveApp.runs("mono " + ref)).isEqualTo(2);
    }

    private static void awaitRuns(String what, int n) {
        Awaitility.await(what + " to run").atMost(WAIT).until(() -> ReactiveApp.runs(what) >= n);
    }
}
