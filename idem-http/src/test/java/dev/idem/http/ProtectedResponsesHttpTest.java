package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.StoredBytes;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.http.internal.StoredResponse;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Protected outcomes over HTTP, on the JDK server: an encrypted response is replayed byte for
 * byte; a record that cannot be read (its key id missing, a wrong key, altered, cut short, not
 * encrypted while that is refused, a fingerprint secret gone, a rebuild that fails) is answered
 * 500 {@code outcome-unreadable} without running the handler again; a response filter keeps
 * fields out of the store, a throwing one answers 500 {@code outcome-not-stored}, and the
 * stored-header allow-list still holds for what a filter returns. One server; each test puts
 * its own configuration behind the one route, so every engine sees the same records.
 */
class ProtectedResponsesHttpTest {
    private static final String PAN = "4242424242424242";
    private static final String BODY = "{\"amount\":100,\"card\":\"" + PAN + "\"}";
    private static final KeyVersion K1 = secret("k1", 1);
    private static final KeyVersion K2 = secret("k2", 2);
    private static final AtomicReference<HttpHandler> ACTIVE = new AtomicReference<>();
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static HttpServer server;
    private static ExecutorService executor;
    private static Http http;

    private final SwitchableStore store = new SwitchableStore(MemoryIdempotencyStore.create());
    private final String key = UUID.randomUUID().toString();

    private static KeyVersion secret(String id, int fill) {
        byte[] bytes = new byte[32];
        Arrays.fill(bytes, (byte) fill);
        return KeyVersion.of(id, bytes);
    }

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        executor = Executors.newFixedThreadPool(4);
        server.setExecutor(executor);
        server.createContext("/v1/", exchange -> ACTIVE.get().handle(exchange));
        server.start();
        http = new Http("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    @BeforeEach
    void resetRuns() {
        RUNS.set(0);
    }

    /** The application: a 201 that echoes the request, with a header that is stored and one that is not. */
    private static final HttpHandler APP = exchange -> {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        byte[] reply = ("{\"charge\":\"ch_" + RUNS.incrementAndGet() + "\",\"received\":"
                + new String(body, StandardCharsets.UTF_8) + "}").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.getResponseHeaders().set("Location", "/v1/charges/" + RUNS.get());
        exchange.sendResponseHeaders(201, reply.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply);
        }
    };

    private void serve(UnaryOperator<IdempotencyEngineBuilder> engine) {
        serve(engine, h -> h);
    }

    private void serve(UnaryOperator<IdempotencyEngineBuilder> engine, UnaryOperator<HttpIdempotency.Builder> http) {
        IdempotencyEngine e = engine.apply(IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(10))
                .ttl(Duration.ofHours(1))).build();
        ACTIVE.set(new IdempotentHttpHandler(http.apply(HttpIdempotency.builder(e)
                .principals(PrincipalResolver.fixed("merchant-1"))).build(), APP));
    }

    private HttpResponse<byte[]> post() throws Exception {
        return http.post("/v1/charges", BODY, "Idempotency-Key", key);
    }

    private byte[] stored() {
        return store.find(IdempotencyKey.of("merchant-1", "POST /v1/charges", key)).orElseThrow().outcome();
    }

    private static boolean holds(byte[] bytes, String text) {
        return new String(bytes, StandardCharsets.ISO_8859_1).contains(text);
    }

    private static void assertProblem(HttpResponse<byte[]> r, int status, String slug) {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(Http.text(r)).contains("\"type\":\"" + HttpIdempotency.PROBLEM_TYPE_PREFIX + slug + "\"");
    }

    @Test
    void anEncryptedResponseIsReplayedByteForByteAndNotHeldInClear() throws Exception {
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)));
        HttpResponse<byte[]> first = post();
        HttpResponse<byte[]> replay = post();
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(Http.text(first)).contains(PAN);
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        // The body is stored as Base64 inside the outcome: neither spelling is in the store.
        String base64 = java.util.Base64.getEncoder().encodeToString(Arrays.copyOfRange(first.body(), 0, 30));
        assertThat(holds(stored(), base64.substring(0, 36))).isFalse();
        assertThat(holds(stored(), "Location")).isFalse();
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void anEngineWideOutcomeFilterForTypedResultsLeavesHttpResponsesAlone() throws Exception {
        // The Spring starter hands an application's OutcomeFilter bean to the engine: the HTTP layer stores
        // frames of bytes, which such a filter cannot read, and must neither fail nor filter them.
        serve(b -> b.outcomeFilter(OutcomeFilter.removing("/card")));
        HttpResponse<byte[]> first = post();
        HttpResponse<byte[]> replay = post();

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aRecordUnderADroppedOrWrongKeyIs500OutcomeUnreadableAndTheHandlerDoesNotRunAgain() throws Exception {
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)));
        HttpResponse<byte[]> first = post();
        serve(b -> b.encryptOutcomes(KeyRing.of(K2, K1)));
        assertThat(post().body()).isEqualTo(first.body());

        serve(b -> b.encryptOutcomes(KeyRing.of(K2)));
        assertProblem(post(), 500, "outcome-unreadable");
        serve(b -> b.encryptOutcomes(KeyRing.of(secret("k1", 9))));
        HttpResponse<byte[]> wrong = post();
        assertProblem(wrong, 500, "outcome-unreadable");
        // Key ids are for the operator's log, not the client.
        assertThat(Http.text(wrong)).doesNotContain("k1");
        serve(b -> b);
        assertProblem(post(), 500, "outcome-unreadable");
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void anAlteredOrCutShortRecordIs500OutcomeUnreadable() throws Exception {
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)));
        for (UnaryOperator<byte[]> damage : List.<UnaryOperator<byte[]>>of(b -> {
            byte[] c = b.clone();
            c[c.length / 2] ^= 1;
            return c;
        }, b -> Arrays.copyOf(b, b.length - 20), b -> Arrays.copyOf(b, 12))) {
            String k = UUID.randomUUID().toString();
            store.outcomeWritten = damage;
            assertThat(http.post("/v1/charges", BODY, "Idempotency-Key", k).statusCode()).isEqualTo(201);
            store.outcomeWritten = null;
            assertProblem(http.post("/v1/charges", BODY, "Idempotency-Key", k), 500, "outcome-unreadable");
        }
        assertThat(RUNS).hasValue(3);
    }

    @Test
    void aRecordInClearIsRefusedOnceEncryptionIsRequired() throws Exception {
        serve(b -> b);
        HttpResponse<byte[]> first = post();
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)));
        assertThat(post().body()).isEqualTo(first.body());
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)).refuseUnencryptedRecords());
        assertProblem(post(), 500, "outcome-unreadable");
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void keyedFingerprintsReplayAcrossRotationAndADroppedSecretIs500() throws Exception {
        serve(b -> b.keyedFingerprints(KeyRing.of(K1)));
        HttpResponse<byte[]> first = post();
        serve(b -> b.keyedFingerprints(KeyRing.of(K2, K1)));
        assertThat(post().body()).isEqualTo(first.body());
        assertProblem(http.post("/v1/charges", "{\"amount\":200}", "Idempotency-Key", key), 422, "key-reused");
        serve(b -> b.keyedFingerprints(KeyRing.of(K2)));
        assertProblem(post(), 500, "outcome-unreadable");
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aResponseFilterKeepsFieldsOutOfTheStoreAndItsHeadersToTheAllowList() throws Exception {
        ResponseFilter filter = new ResponseFilter() {
            private final ResponseFilter removing = ResponseFilter.removingJsonFields("/received/card");

            @Override
            public Response keep(IdempotencyKey k, Response response) throws Exception {
                Response kept = removing.keep(k, response);
                Map<String, List<String>> headers = new java.util.LinkedHashMap<>(kept.headers());
                headers.put("Set-Cookie", List.of("session=secret"));
                return new Response(kept.status(), headers, kept.body());
            }
        };
        serve(b -> b, h -> h.responseFilter(filter));
        HttpResponse<byte[]> first = post();
        assertThat(Http.text(first)).contains(PAN);
        String storedJson = new String(stored(), StandardCharsets.UTF_8);
        assertThat(storedJson).doesNotContain("Set-Cookie");
        HttpResponse<byte[]> replay = post();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(Http.text(replay)).doesNotContain(PAN).contains("\"amount\":100");
        assertThat(replay.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aResponseFilterThatThrowsIs500OutcomeNotStoredAndTheHandlerDoesNotRunAgain() throws Exception {
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)), h -> h.responseFilter((k, response) -> {
            throw new IllegalStateException("redaction service down");
        }));
        assertProblem(post(), 500, "outcome-not-stored");
        assertProblem(post(), 500, "outcome-not-stored");
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aFailedRebuildIs500ForThatReplayOnly() throws Exception {
        AtomicInteger down = new AtomicInteger(1);
        ResponseFilter byReference = new ResponseFilter() {
            @Override
            public Response keep(IdempotencyKey k, Response response) {
                ObjectNode ref = JsonNodeFactory.instance.objectNode().put("location", response.header("Location"));
                return response.withBody(ref.toString().getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public Response rebuild(IdempotencyKey k, Response stored) {
                if (down.getAndDecrement() > 0) {
                    throw new IllegalStateException("ledger unavailable");
                }
                return stored.withBody(("{\"rebuilt\":" + new String(stored.body(), StandardCharsets.UTF_8) + "}")
                        .getBytes(StandardCharsets.UTF_8));
            }
        };
        serve(b -> b.encryptOutcomes(KeyRing.of(K1)), h -> h.responseFilter(byReference));
        assertThat(post().statusCode()).isEqualTo(201);
        assertProblem(post(), 500, "outcome-unreadable");
        HttpResponse<byte[]> replay = post();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(Http.text(replay)).isEqualTo("{\"rebuilt\":{\"location\":\"/v1/charges/1\"}}");
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aResponseFilterRunsOnceWhenStoredAndAReplaySendsTheStoredFrameUndecoded() throws Exception {
        AtomicInteger kept = new AtomicInteger();
        ResponseFilter removing = ResponseFilter.removingJsonFields("/received/card");
        serve(b -> b, h -> h.responseFilter((k, response) -> {
            kept.incrementAndGet();
            return removing.keep(k, response);
        }));
        HttpResponse<byte[]> first = post();
        HttpResponse<byte[]> replay = post();
        HttpResponse<byte[]> again = post();

        assertThat(Http.text(first)).contains(PAN);
        // A frame of bytes ('B'), not a JSON document the engine would decode on every replay ('S').
        assertThat(stored()[0]).isEqualTo((byte) 'B');
        assertThat(holds(stored(), PAN)).isFalse();
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(Http.text(replay)).doesNotContain(PAN).contains("\"amount\":100");
        assertThat(again.body()).isEqualTo(replay.body());
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(kept).hasValue(1);
        assertThat(RUNS).hasValue(1);
    }

    /** What an earlier version stored of a response: its JSON form as a success outcome ('S'). */
    private static byte[] storedAsJson(byte[] frameOutcome) {
        assertThat(frameOutcome[0]).isEqualTo((byte) 'B');
        StoredResponse response = StoredResponse.fromStored(
                StoredBytes.wrap(Arrays.copyOfRange(frameOutcome, 1, frameOutcome.length)));
        try {
            byte[] json = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsBytes(response);
            byte[] outcome = new byte[json.length + 1];
            outcome[0] = 'S';
            System.arraycopy(json, 0, outcome, 1, json.length);
            return outcome;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aResponseStoredAsJsonByAnEarlierVersionStillReplays() throws Exception {
        serve(b -> b);
        store.outcomeWritten = ProtectedResponsesHttpTest::storedAsJson;
        HttpResponse<byte[]> first = post();
        store.outcomeWritten = null;
        assertThat(new String(stored(), StandardCharsets.UTF_8)).startsWith("S{\"status\":201,");

        HttpResponse<byte[]> replay = post();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(RUNS).hasValue(1);
    }

    @Test
    void aFilteredResponseStoredAsJsonByAnEarlierVersionIsStillRebuilt() throws Exception {
        ResponseFilter removing = ResponseFilter.removingJsonFields("/received/card");
        ResponseFilter rebuilding = new ResponseFilter() {
            @Override
            public Response keep(IdempotencyKey k, Response response) throws Exception {
                return removing.keep(k, response);
            }

            @Override
            public Response rebuild(IdempotencyKey k, Response stored) {
                return stored.withBody(("{\"rebuilt\":" + new String(stored.body(), StandardCharsets.UTF_8) + "}")
                        .getBytes(StandardCharsets.UTF_8));
            }
        };
        serve(b -> b, h -> h.responseFilter(rebuilding));
        store.outcomeWritten = ProtectedResponsesHttpTest::storedAsJson;
        assertThat(post().statusCode()).isEqualTo(201);
        store.outcomeWritten = null;
        assertThat(stored()[0]).isEqualTo((byte) 'S');

        HttpResponse<byte[]> replay = post();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(Http.text(replay)).startsWith("{\"rebuilt\":{\"charge\":\"ch_1\"").doesNotContain(PAN);
        assertThat(RUNS).hasValue(1);
    }
}
