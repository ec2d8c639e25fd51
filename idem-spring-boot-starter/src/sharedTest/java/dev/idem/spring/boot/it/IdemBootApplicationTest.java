package dev.idem.spring.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.MutableClock;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shared Boot suite: a real Spring Boot application on an embedded Tomcat, behind Spring
 * Security, on a real PostgreSQL, over HTTP. Both starters run it, each on its Boot generation
 * (idem-spring-boot-starter on Boot 4, idem-spring-boot3-starter on Boot 3.5), against one
 * application context per generation.
 */
@SpringBootTest(classes = BootApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "idem.http.routes=/orders/**,/payments,/open/**",
        "idem.http.transactional-routes=/payments",
        "idem.http.principal-header=X-Api-Key",
        "idem.max-request-bytes=4096",
        "idem.lease=30s",
        "idem.purge.enabled=false",
        "management.endpoints.web.exposure.include=health,metrics",
        "management.endpoint.health.show-details=always",
        "management.tracing.sampling.probability=1.0",
        "spring.main.banner-mode=off"})
@ExtendWith(OutputCaptureExtension.class)
class IdemBootApplicationTest {
    private static final EmbeddedPostgres PG = EmbeddedPostgresServer.start();
    private static final ExecutorService POOL = Executors.newFixedThreadPool(8);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    BootApp.Gate gate;

    @Autowired
    MutableClock storeClock;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    MeterRegistry meters;

    @Autowired
    InMemorySpanExporter spans;

    @Autowired
    SdkTracerProvider tracerProvider;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> PG.getJdbcUrl("postgres", "postgres"));
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "postgres");
    }

    @AfterAll
    static void stop() throws IOException {
        POOL.shutdownNow();
        PG.close();
    }

    private HttpResponse<String> post(String path, String user, String apiKey, String key, String contentType,
            String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", contentType)
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
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String user, String key, String json) throws Exception {
        return post(path, user, null, key, "application/json", json);
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    private static String status(HttpResponse<String> r) {
        return r.headers().firstValue("Idempotency-Status").orElse("none");
    }

    private int payments(String ref) {
        return jdbc.queryForObject("select count(*) from payment where ref = ?", Integer.class, ref);
    }

    private int records() {
        return jdbc.queryForObject("select count(*) from idem_record", Integer.class);
    }

    @Test
    void metricsAndSpansAreNamedAfterTheRouteWhileRecordsAreKeyedByThePath() throws Exception {
        String key = key();
        HttpResponse<String> one = post("/orders/1/confirm", "alice", key, "{}");
        HttpResponse<String> two = post("/orders/2/confirm", "alice", key, "{}");
        HttpResponse<String> replay = post("/orders/1/confirm", "alice", key, "{}");
        assertThat(List.of(status(one), status(two), status(replay))).containsExactly("stored", "stored", "replayed");
        assertThat(replay.body()).isEqualTo(one.body());

        String route = "POST /orders/{id}/confirm";
        List<String> operations = new ArrayList<>();
        for (Meter m : meters.getMeters()) {
            String op = m.getId().getTag("idem.operation");
            if (op != null) {
                operations.add(op);
            }
        }
        assertThat(operations).contains(route).noneMatch(op -> op.contains("/orders/1") || op.contains("/orders/2"));
        Timer executed = meters.find("idem.execution").tags("idem.operation", route, "idem.outcome", "executed",
                "idem.store.kind", "jdbc").timer();
        assertThat(executed).isNotNull();
        assertThat(executed.count()).isGreaterThanOrEqualTo(2);
        // Spring's own server metric knows the route of a replay the filter answered by itself.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Timer served = meters.find("http.server.requests").tags("uri", "/orders/{id}/confirm", "status", "201")
                    .timer();
            assertThat(served).isNotNull();
            assertThat(served.count()).isGreaterThanOrEqualTo(3);
        });
        assertThat(meters.find("http.server.requests").tags("uri", "UNKNOWN", "status", "201").timers()).isEmpty();

        assertThat(tracerProvider.forceFlush().join(20, TimeUnit.SECONDS).isSuccess()).isTrue();
        List<SpanData> idem = spans.getFinishedSpanItems().stream()
                .filter(s -> route.equals(s.getAttributes().get(AttributeKey.stringKey("idem.operation"))))
                .toList();
        assertThat(idem).isNotEmpty().allSatisfy(s -> {
            assertThat(s.getName()).isEqualTo("idem post /orders/{id}/confirm");
            assertThat(s.getAttributes().get(AttributeKey.stringKey("idem.store.kind"))).isEqualTo("jdbc");
        });
        assertThat(spans.getFinishedSpanItems()).anySatisfy(s -> assertThat(s.getName()).isEqualTo("idem.store.claim"));
    }

    @Test
    void springPathPatternsCoverTheirRoutes() throws Exception {
        HttpResponse<String> noKey = post("/orders/5/confirm", "alice", null, "{}");
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.body()).contains("missing-key");
        assertThat(gate.runs("order-5")).isZero();
    }

    @Test
    void everySpellingOfThePathIsOneIntentAndOnePayment() throws Exception {
        String key = key();
        String ref = "spell-" + key;
        String body = "{\"ref\":\"" + ref + "\",\"amount\":100}";
        HttpResponse<String> first = post("/payments", "alice", key, body);
        assertThat(status(first)).isEqualTo("stored");
        for (String spelling : List.of("/pay%6Dents", "/payments;x=1", "//payments", "/./payments", "/x/../payments")) {
            HttpResponse<String> again = post(spelling, "alice", key, body);
            // Replayed, or refused before any handler ran (Spring Security rejects some spellings): never a second payment.
            assertThat(status(again)).as(spelling).isIn("replayed", "none");
            if (status(again).equals("replayed")) {
                assertThat(again.body()).as(spelling).isEqualTo(first.body());
            } else {
                assertThat(again.statusCode()).as(spelling).isBetween(400, 499);
            }
        }
        assertThat(payments(ref)).isEqualTo(1);
    }

    @Test
    void aHandlerWhoseConnectionIsCutMidWayLeavesNoPaymentAndTheRetryPaysOnce() throws Exception {
        String key = key();
        String ref = "crash-" + key;
        String body = "{\"ref\":\"" + ref + "\",\"amount\":700}";
        gate.hold("payment-" + ref);
        Future<HttpResponse<String>> stale = POOL.submit(() -> post("/payments", "alice", key, body));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();

        // The process "dies" mid-handler: its database session is killed with its open transaction.
        JdbcTemplate admin = new JdbcTemplate(PG.getPostgresDatabase());
        int killed = admin.queryForObject("select count(pg_terminate_backend(pid)) from pg_stat_activity "
                + "where state like 'idle in transaction%' and pid <> pg_backend_pid()", Integer.class);

        // The lease lapses; the client's retry takes the key over and pays once.
        storeClock.advance(Duration.ofSeconds(31));
        HttpResponse<String> retry = post("/payments", "alice", key, body);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        gate.release.countDown();
        HttpResponse<String> late = stale.get(30, TimeUnit.SECONDS);

        // Outside the transactional mode the dead handler's payment was already committed: two payments.
        assertThat(payments(ref)).as("payments for one intent").isEqualTo(1);
        assertThat(killed).as("the handler's open transaction").isEqualTo(1);
        assertThat(late.statusCode()).isNotEqualTo(201);
        HttpResponse<String> replay = post("/payments", "alice", key, body);
        assertThat(status(replay)).isEqualTo("replayed");
        assertThat(replay.body()).isEqualTo(retry.body());
        assertThat(payments(ref)).isEqualTo(1);
    }

    @Test
    void idempotentMethodErrorsAreProblemDetailsNot500s() throws Exception {
        String ref = "r-" + key();
        HttpResponse<String> first = post("/service/charges", "alice", null, "{\"reference\":\"" + ref
                + "\",\"amount\":100}");
        assertThat(first.statusCode()).isEqualTo(201);
        HttpResponse<String> reused = post("/service/charges", "alice", null, "{\"reference\":\"" + ref
                + "\",\"amount\":999}");
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(reused.body()).contains("https://idem.dev/problems/key-reused");

        HttpResponse<String> tooLong = post("/service/charges", "alice", null, "{\"reference\":\"" + "x".repeat(300)
                + "\",\"amount\":1}");
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("invalid-key");
        HttpResponse<String> notAscii = post("/service/charges", "alice", null,
                "{\"reference\":\"r\u00e9f-1\",\"amount\":1}");
        assertThat(notAscii.statusCode()).isEqualTo(400);

        String slow = "slow-" + key();
        gate.hold("charge-" + slow);
        Future<HttpResponse<String>> held = POOL.submit(() -> post("/service/charges", "alice", null,
                "{\"reference\":\"" + slow + "\",\"amount\":5}"));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> busy = post("/service/charges", "alice", null, "{\"reference\":\"" + slow
                + "\",\"amount\":5}");
        gate.release.countDown();
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.headers().firstValue("Retry-After")).isPresent();
        assertThat(busy.body()).contains("request-in-progress");
        assertThat(held.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }

    @Test
    void oneCallersKeyNeverReachesAnotherCallersOutcome() throws Exception {
        String ref = "t-" + key();
        String body = "{\"reference\":\"" + ref + "\",\"amount\":100}";
        HttpResponse<String> alice = post("/service/charges", "alice", null, null, "application/json", body);
        HttpResponse<String> bob = post("/service/charges", "bob", null, null, "application/json", body);
        HttpResponse<String> k1 = post("/service/charges", null, "k1-" + ref, null, "application/json", body);
        HttpResponse<String> k2 = post("/service/charges", null, "k2-" + ref, null, "application/json", body);
        HttpResponse<String> aliceWithK1 = post("/service/charges", "alice", "k1-" + ref, null, "application/json",
                body);
        HttpResponse<String> anonymous = post("/service/charges", null, null, null, "application/json", body);

        assertThat(List.of(alice.body(), bob.body(), k1.body(), k2.body())).doesNotHaveDuplicates();
        // An authenticated principal beats the header: alice's own outcome, not k1's.
        assertThat(aliceWithK1.body()).isEqualTo(alice.body());
        // No principal at all: refused, never a shared default scope.
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("unauthenticated");
        assertThat(gate.runs("charge-" + ref)).isEqualTo(4);

        // The filter follows the same rule.
        String key = key();
        HttpResponse<String> n1 = post("/open/notes", null, "k1-" + ref, key, "application/json", "{\"text\":\"a\"}");
        HttpResponse<String> n2 = post("/open/notes", null, "k2-" + ref, key, "application/json", "{\"text\":\"a\"}");
        HttpResponse<String> n3 = post("/open/notes", "alice", "k1-" + ref, key, "application/json", "{\"text\":\"a\"}");
        assertThat(List.of(status(n1), status(n2), status(n3))).containsOnly("stored");
        assertThat(List.of(n1.body(), n2.body(), n3.body())).doesNotHaveDuplicates();
    }

    private HttpResponse<String> postWith(String path, String key, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String sha256(String text) throws Exception {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(java.security.MessageDigest
                .getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** A 210-character X.509 subject: longer than a scope may be, so stored under its digest. */
    private static final String LONG_DN = "CN=Alice Example Longname,OU=Payments Platform Engineering,OU=Settlement"
            + " Services,O=Example Corporation Holding International,L=Frankfurt am Main,ST=Hessen,C=DE,"
            + "emailAddress=alice.example@example.com,serialNumber=0042";

    @Test
    void aLoginSpelledLikeAnotherCallersScopeNeverReachesItsRecords() throws Exception {
        String digestSpelling = "sha256:" + sha256(LONG_DN);
        String apiKey = "sk_live_" + key();
        String apiKeySpelling = "api-key:" + sha256(apiKey);
        String key = key();
        String ref = "scope-" + key;

        // The filter, on a covered route, for a long name and for an API key.
        HttpResponse<String> victim = postWith("/orders/81/confirm", key, "{}", "X-Test-User", LONG_DN);
        HttpResponse<String> reader = postWith("/orders/81/confirm", key, "{}", "X-Test-User", digestSpelling);
        HttpResponse<String> keyVictim = postWith("/open/notes", key, "{\"text\":\"a\"}", "X-Api-Key", apiKey);
        HttpResponse<String> keyReader = postWith("/open/notes", key, "{\"text\":\"a\"}", "X-Test-User",
                apiKeySpelling);
        // @Idempotent, scoped by the caller as the filter is.
        String charge = "{\"reference\":\"" + ref + "\",\"amount\":100}";
        HttpResponse<String> chargeVictim = postWith("/service/charges", null, charge, "X-Test-User", LONG_DN);
        HttpResponse<String> chargeReader = postWith("/service/charges", null, charge, "X-Test-User", digestSpelling);
        HttpResponse<String> keyCharge = postWith("/service/charges", null, charge, "X-Api-Key", apiKey);
        HttpResponse<String> keyChargeReader = postWith("/service/charges", null, charge, "X-Test-User",
                apiKeySpelling);

        assertThat(List.of(status(victim), status(reader), status(keyVictim), status(keyReader)))
                .containsOnly("stored");
        assertThat(reader.body()).isNotEqualTo(victim.body());
        assertThat(keyReader.body()).isNotEqualTo(keyVictim.body());
        assertThat(List.of(chargeVictim, chargeReader, keyCharge, keyChargeReader))
                .allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(201));
        assertThat(List.of(chargeVictim.body(), chargeReader.body(), keyCharge.body(), keyChargeReader.body()))
                .doesNotHaveDuplicates();
        assertThat(gate.runs("order-81")).isEqualTo(2);
        assertThat(gate.runs("charge-" + ref)).isEqualTo(4);
    }

    @Test
    void responsesThatSayNothingAboutTheOperationAreNotStored() throws Exception {
        int before = records();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = post("/open/notes", null, "random-" + key(), key(), "text/plain", "hello");
            assertThat(r.statusCode()).isEqualTo(415);
            assertThat(status(r)).isEqualTo("none");
        }
        HttpResponse<String> unmatched = post("/orders/9/cancel", "alice", key(), "{}");
        assertThat(unmatched.statusCode()).isIn(404, 405);
        assertThat(status(unmatched)).isEqualTo("none");
        assertThat(records()).isEqualTo(before);
    }

    @Test
    void theBodyLimitIsIdemMaxRequestBytes() throws Exception {
        HttpResponse<String> large = post("/open/notes", null, "k-large", key(), "application/json",
                "{\"text\":\"" + "x".repeat(5000) + "\"}");
        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(large.body()).contains("request-too-large");
    }

    @Test
    void concurrentDuplicatesRunOnceThenReplay() throws Exception {
        String key = key();
        gate.hold("order-77");
        Future<HttpResponse<String>> first = POOL.submit(() -> post("/orders/77/confirm", "alice", key, "{}"));
        assertThat(gate.entered.await(30, TimeUnit.SECONDS)).isTrue();
        int duplicates = 4;
        CyclicBarrier start = new CyclicBarrier(duplicates);
        List<Future<HttpResponse<String>>> dups = new ArrayList<>();
        for (int i = 0; i < duplicates; i++) {
            dups.add(POOL.submit(() -> {
                start.await(30, TimeUnit.SECONDS);
                return post("/orders/77/confirm", "alice", key, "{ }");
            }));
        }
        for (Future<HttpResponse<String>> d : dups) {
            HttpResponse<String> r = d.get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(r.headers().firstValue("Retry-After")).isPresent();
        }
        gate.release.countDown();
        HttpResponse<String> created = first.get(30, TimeUnit.SECONDS);
        assertThat(created.statusCode()).isEqualTo(201);
        HttpResponse<String> replay = post("/orders/77/confirm", "alice", key, "{}");
        assertThat(status(replay)).isEqualTo("replayed");
        assertThat(replay.body()).isEqualTo(created.body());
        assertThat(gate.runs("order-77")).isEqualTo(1);
        assertThat(post("/orders/77/confirm", "bob", key, "{}").statusCode()).isEqualTo(201);
        assertThat(gate.runs("order-77")).isEqualTo(2);
    }

    @Test
    void aCleanStartLogsNoWarning(CapturedOutput output) {
        // The context started inside this class's capture: nothing up to "Started" is a warning
        // (such as Spring's about idem's beans missing post-processors).
        assertThat(output.getAll()).contains("Started IdemBootApplicationTest");
        assertThat(output.getAll().lines().takeWhile(l -> !l.contains("Started IdemBootApplicationTest"))
                .filter(l -> l.contains(" WARN ") || l.contains("WARNING"))).as("warnings at startup").isEmpty();
    }

    @Test
    void theHealthIndicatorNamesTheStore() throws Exception {
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/actuator/health")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"idem\"").contains("\"store\":\"jdbc\"");
        assertThat(Objects.requireNonNull(health.body())).contains("UP");
    }
}
