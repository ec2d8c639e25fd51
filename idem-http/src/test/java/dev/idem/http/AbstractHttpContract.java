package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP contract, run against a real server on loopback with a real client: every row of
 * the status table, byte-identical replays, the storage policy, and concurrent duplicates.
 * Subclasses start one server per class with {@link #config} on {@code /api/} and
 * {@code /anon/} (no authentication), {@link #storeAllConfig} on {@code /custom/}, and
 * {@link #config} over {@link #finalFailureEngine} on {@code /final/}; the caller is
 * authenticated from the {@code X-User} header, else by the API key in {@code X-Api-Key}.
 *
 * <p>The caller's budget ({@code X-Request-Timeout}) has its cases here too, so every server
 * adapter answers them alike: malformed and repeated values (400), a spent budget (504, nothing
 * stored), an absurdly large one, the deadline the handler sees, a handler that outlives its
 * caller's budget (stored anyway), and a duplicate whose wait the budget cuts short (409 in time,
 * on {@code /final/}, whose engine lets duplicates wait).
 */
abstract class AbstractHttpContract extends HttpIsolationContract {
    static final int MAX_BODY = 64 * 1024;
    static final Duration WAITING_ENGINE_WAIT = Duration.ofSeconds(20);

    /** The client pointed at the running server. */
    abstract Http http();

    /** The application behind the filter. */
    abstract TestHandler handler();

    /** The store, switchable for the outage row. */
    abstract SwitchableStore store();

    static IdempotencyEngine engine(SwitchableStore store) {
        return IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(10)).ttl(Duration.ofHours(1))
                .build();
    }

    /**
     * An engine whose classifier stores IllegalArgumentException as a final failure, and whose
     * duplicates wait up to 20 s for an in-progress key (longer than any test's client waits, so
     * only a budget can end that wait in time).
     */
    static IdempotencyEngine finalFailureEngine(SwitchableStore store) {
        return IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(10)).ttl(Duration.ofHours(1))
                .inProgress(InProgressPolicy.waitUpTo(WAITING_ENGINE_WAIT))
                .failureClassifier(e -> e instanceof IllegalArgumentException
                        ? FailureDecision.finalFailure("card_declined", e.getMessage())
                        : FailureDecision.transientFailure())
                .build();
    }

    static SwitchableStore newStore() {
        return new SwitchableStore(MemoryIdempotencyStore.create());
    }

    /** The caller: the authenticated user, else the API key in X-Api-Key. */
    static final PrincipalResolver PRINCIPALS = PrincipalResolver.authenticatedUser()
            .orElse(PrincipalResolver.apiKeyHeader("X-Api-Key"));

    static HttpIdempotency config(IdempotencyEngine engine) {
        return configBuilder(engine).principals(PRINCIPALS).build();
    }

    /** The builder of {@link #config} before its {@link #PRINCIPALS}, for a test that changes a setting. */
    static HttpIdempotency.Builder configBuilder(IdempotencyEngine engine) {
        return HttpIdempotency.builder(engine)
                .keyRequired(route -> !route.endsWith("/optional"))
                .excludeFromFingerprint("/meta/traceId")
                .storedHeaders("Content-Type", "Location", "ETag", "X-Count")
                .maxBodyBytes(MAX_BODY)
                .storeRetryAfter(Duration.ofSeconds(3));
    }

    static HttpIdempotency storeAllConfig(IdempotencyEngine engine) {
        return HttpIdempotency.builder(engine).storagePolicy(ResponseStoragePolicy.of(status -> true)).build();
    }

    static String key() {
        return UUID.randomUUID().toString();
    }

    private HttpResponse<byte[]> charge(String key, String json, String user) throws Exception {
        return http().post("/api/charges", json, "Idempotency-Key", key, "X-User", user);
    }

    private static void assertProblem(HttpResponse<byte[]> r, int status, String slug) {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(Http.text(r)).contains("\"type\":\"" + HttpIdempotency.PROBLEM_TYPE_PREFIX + slug + "\"")
                .contains("\"status\":" + status);
        assertThat(r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
    }

    @Test
    void firstResponseIsStoredAndReplayedByteForByte() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = charge(key, "{\"amount\":1000,\"currency\":\"EUR\"}", "alice");
        HttpResponse<byte[]> second = charge(key, "{\"amount\":1000,\"currency\":\"EUR\"}", "alice");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENT_REPLAYED)).isEmpty();
        assertThat(first.headers().firstValue("X-Trace")).isPresent();

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(second.headers().firstValue(HttpIdempotency.IDEMPOTENT_REPLAYED)).hasValue("true");
        // Stored headers come back identical; per-response ones (X-Trace) are not replayed.
        assertThat(second.headers().firstValue("X-Trace")).isEmpty();
        var expected = Http.stableHeaders(first);
        expected.remove("X-Trace");
        assertThat(Http.stableHeaders(second)).isEqualTo(expected);
        assertThat(second.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"))
                .isPresent();
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void keyOrderWhitespaceAndExcludedFieldsDoNotChangeTheFingerprint() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = charge(key, "{\"amount\":1000,\"currency\":\"EUR\",\"meta\":{\"traceId\":\"a\"}}",
                "alice");
        HttpResponse<byte[]> second = charge(key,
                "{ \"meta\" : {\"traceId\":\"b\"},\n \"currency\":\"EUR\", \"amount\":1000.0 }", "alice");

        assertThat(second.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void keyReusedWithAnotherPayloadIs422AndRunsNothing() throws Exception {
        String key = key();
        charge(key, "{\"amount\":1000}", "alice");
        HttpResponse<byte[]> reused = charge(key, "{\"amount\":9999}", "alice");

        assertProblem(reused, 422, "key-reused");
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void keyIsScopedByPrincipalAndByMethodAndRoute() throws Exception {
        String key = key();
        HttpResponse<byte[]> alice = charge(key, "{\"amount\":1}", "alice");
        HttpResponse<byte[]> bob = charge(key, "{\"amount\":1}", "bob");
        HttpResponse<byte[]> otherRoute = http().post("/api/other", "{\"amount\":1}", "Idempotency-Key", key,
                "X-User", "alice");
        HttpResponse<byte[]> patch = http().send("PATCH", "/api/other", "{\"amount\":1}".getBytes(StandardCharsets.UTF_8),
                "Content-Type", "application/json", "Idempotency-Key", key, "X-User", "alice");

        assertThat(List.of(alice, bob, otherRoute, patch)).allSatisfy(r ->
                assertThat(r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored"));
        assertThat(bob.body()).isNotEqualTo(alice.body());
        assertThat(handler().executions("/api/charges", key)).isEqualTo(2);
        assertThat(handler().executions("/api/other", key)).isEqualTo(2);
    }

    @Test
    void missingKeyIs400WhereTheRouteRequiresOne() throws Exception {
        HttpResponse<byte[]> r = http().post("/api/charges", "{}", "X-User", "alice");

        assertProblem(r, 400, "missing-key");
        assertThat(handler().executions("/api/charges", "null")).isZero();
    }

    @Test
    void missingKeyPassesThroughWhereTheRouteDoesNotRequireOne() throws Exception {
        HttpResponse<byte[]> a = http().post("/api/optional", "{}", "X-User", "alice");
        HttpResponse<byte[]> b = http().post("/api/optional", "{}", "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(b.body()).isNotEqualTo(a.body());
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(handler().executions("/api/optional", "null")).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\"\"", "\"unterminated", "\"bad\\escape\"", "\"abc\" trailing", "a b",
            "\"a b\"", "key,with,commas", "\"a\", \"b\""})
    void invalidKeyIs400(String header) throws Exception {
        HttpResponse<byte[]> r = http().post("/api/charges", "{}", "Idempotency-Key", header, "X-User", "alice");

        assertProblem(r, 400, "invalid-key");
    }

    @Test
    void tooLongAndRepeatedKeysAre400() throws Exception {
        HttpResponse<byte[]> tooLong = http().post("/api/charges", "{}", "Idempotency-Key", "k".repeat(256),
                "X-User", "alice");
        HttpResponse<byte[]> twice = http().post("/api/charges", "{}", "Idempotency-Key", "a", "Idempotency-Key",
                "b", "X-User", "alice");

        assertProblem(tooLong, 400, "invalid-key");
        assertProblem(twice, 400, "invalid-key");
        assertThat(handler().executions("/api/charges", "k".repeat(256))).isZero();
    }

    @Test
    void structuredFieldStringAndBareTokenAreTheSameKey() throws Exception {
        String key = key();
        HttpResponse<byte[]> quoted = http().post("/api/charges", "{\"amount\":5}", "Idempotency-Key",
                "\"" + key + "\";p=1", "X-User", "alice");
        HttpResponse<byte[]> bare = http().post("/api/charges", "{\"amount\":5}", "Idempotency-Key", " " + key,
                "X-User", "alice");

        assertThat(quoted.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(bare.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(bare.body()).isEqualTo(quoted.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
    void safeAndUncoveredMethodsPassThroughUntouched(String method) throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http().send(method, "/api/thing", null, "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http().send(method, "/api/thing", null, "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(b.statusCode()).isEqualTo(200);
        assertThat(a.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(handler().executions("/api/thing", key)).isEqualTo(2);
    }

    /** What one duplicate got while the first request was held in its handler, and what followed. */
    private record Held(HttpResponse<byte[]> duplicate, Duration duplicateTook, HttpResponse<byte[]> original,
            HttpResponse<byte[]> retry, int executions) {
    }

    /**
     * Holds a first request to {@code path} in its handler, sends a duplicate with {@code headers}
     * added, then lets the first finish and sends a retry.
     */
    private Held duplicateWhileHeld(String path, String... headers) throws Exception {
        TestHandler h = handler();
        h.gate = new CountDownLatch(1);
        h.entered = new CountDownLatch(1);
        String key = key();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> first = pool.submit(() ->
                    http().post(path, "{}", "Idempotency-Key", key, "X-User", "alice"));
            assertThat(h.entered.await(10, TimeUnit.SECONDS)).isTrue();

            String[] all = new String[headers.length + 4];
            System.arraycopy(new String[] {"Idempotency-Key", key, "X-User", "alice"}, 0, all, 0, 4);
            System.arraycopy(headers, 0, all, 4, headers.length);
            long start = System.nanoTime();
            HttpResponse<byte[]> duplicate = http().post(path, "{}", all);
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            h.gate.countDown();
            HttpResponse<byte[]> original = first.get(10, TimeUnit.SECONDS);
            HttpResponse<byte[]> retry = http().post(path, "{}", "Idempotency-Key", key, "X-User", "alice");
            return new Held(duplicate, took, original, retry, h.executions(path, key));
        } finally {
            h.gate.countDown();
            pool.shutdownNow();
        }
    }

    private static void assertHeldThenReplayed(Held held) {
        assertProblem(held.duplicate(), 409, "request-in-progress");
        assertThat(held.duplicate().headers().firstValue("Retry-After")).hasValueSatisfying(v ->
                assertThat(Long.parseLong(v)).isBetween(1L, 10L));
        assertThat(held.original().statusCode()).isEqualTo(201);
        assertThat(held.retry().headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(held.retry().body()).isEqualTo(held.original().body());
        assertThat(held.executions()).isEqualTo(1);
    }

    @Test
    void duplicateWhileInProgressIs409WithRetryAfterThenReplays() throws Exception {
        assertHeldThenReplayed(duplicateWhileHeld("/api/slow"));
    }

    @Test
    void concurrentDuplicatesExecuteOnceAndTheRestGet409() throws Exception {
        TestHandler h = handler();
        int n = 8;
        h.gate = new CountDownLatch(1);
        h.entered = new CountDownLatch(1);
        String key = key();
        CyclicBarrier start = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CompletionService<HttpResponse<byte[]>> completions = new ExecutorCompletionService<>(pool);
            List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(completions.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return http().post("/api/slow", "{\"x\":1}", "Idempotency-Key", key, "X-User", "alice");
                }));
            }
            assertThat(h.entered.await(10, TimeUnit.SECONDS)).isTrue();
            // The winner is held at the gate, so the first n - 1 answers are all the duplicates'.
            List<HttpResponse<byte[]>> conflicts = new ArrayList<>();
            for (int i = 0; i < n - 1; i++) {
                Future<HttpResponse<byte[]>> done = completions.poll(15, TimeUnit.SECONDS);
                assertThat(done).as("answer to duplicate %d", i).isNotNull();
                conflicts.add(done.get());
            }
            Future<HttpResponse<byte[]>> winner = futures.stream().filter(f -> !f.isDone()).findFirst().orElse(null);
            assertThat(conflicts).hasSize(n - 1).allSatisfy(r -> assertProblem(r, 409, "request-in-progress"));
            assertThat(winner).isNotNull();
            h.gate.countDown();
            HttpResponse<byte[]> won = winner.get(10, TimeUnit.SECONDS);
            assertThat(won.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
            HttpResponse<byte[]> late = http().post("/api/slow", "{\"x\":1}", "Idempotency-Key", key, "X-User", "alice");
            assertThat(late.body()).isEqualTo(won.body());
            assertThat(h.executions("/api/slow", key)).isEqualTo(1);
        } finally {
            h.gate.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void storeUnavailableIs503WithRetryAfterAndRunsNothing() throws Exception {
        String key = key();
        store().down = true;
        HttpResponse<byte[]> r;
        try {
            r = charge(key, "{\"amount\":1}", "alice");
        } finally {
            store().down = false;
        }
        assertProblem(r, 503, "store-unavailable");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(handler().executions("/api/charges", key)).isZero();

        HttpResponse<byte[]> recovered = charge(key, "{\"amount\":1}", "alice");
        assertThat(recovered.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
    }

    @Test
    void serverErrorsAreSentButReleaseTheKey() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http().post("/api/fail", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http().post("/api/fail", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(500);
        assertThat(Http.text(a)).isEqualTo("boom 1");
        assertThat(Http.text(b)).isEqualTo("boom 2");
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(handler().executions("/api/fail", key)).isEqualTo(2);
    }

    @Test
    void theStoragePolicyIsConfigurable() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http().post("/custom/fail", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http().post("/custom/fail", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(500);
        assertThat(b.statusCode()).isEqualTo(500);
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(handler().executions("/custom/fail", key)).isEqualTo(1);
    }

    @Test
    void anExceptionReleasesTheKeySoTheRetryRunsAgain() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = http().post("/api/throw-once", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> retry = http().post("/api/throw-once", "{}", "Idempotency-Key", key, "X-User", "alice");

        // A 500 problem on both servers, never a dropped connection.
        assertProblem(first, 500, "handler-failed");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(handler().executions("/api/throw-once", key)).isEqualTo(2);
    }

    @Test
    void aFailureTheEngineStoredAsFinalIsReplayedAs422WithItsCode() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = http().post("/final/decline", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> replay = http().post("/final/decline", "{}", "Idempotency-Key", key, "X-User", "alice");

        // The first call gets the same answer as its replays.
        assertProblem(first, 422, "replayed-failure");
        assertThat(first.body()).isEqualTo(replay.body());
        assertProblem(replay, 422, "replayed-failure");
        assertThat(Http.text(replay)).contains("\"code\":\"card_declined\"").contains("card declined");
        assertThat(handler().executions("/final/decline", key)).isEqualTo(1);
    }

    @Test
    void deterministicClientErrorsAreStoredButTransientOnesAreNot() throws Exception {
        String bad = key();
        HttpResponse<byte[]> bad1 = http().post("/api/bad", "{}", "Idempotency-Key", bad, "X-User", "alice");
        HttpResponse<byte[]> bad2 = http().post("/api/bad", "{}", "Idempotency-Key", bad, "X-User", "alice");
        String limited = key();
        http().post("/api/limited", "{}", "Idempotency-Key", limited, "X-User", "alice");
        HttpResponse<byte[]> limited2 = http().post("/api/limited", "{}", "Idempotency-Key", limited, "X-User",
                "alice");

        assertThat(bad1.statusCode()).isEqualTo(400);
        assertThat(bad1.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(bad2.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(bad2.body()).isEqualTo(bad1.body());
        assertThat(handler().executions("/api/bad", bad)).isEqualTo(1);
        assertThat(limited2.statusCode()).isEqualTo(429);
        assertThat(limited2.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(handler().executions("/api/limited", limited)).isEqualTo(2);
    }

    @Test
    void responsesAboutTheRequestsFormNotTheOperationAreNotStored() throws Exception {
        for (String route : List.of("/api/unsupported", "/api/not-allowed")) {
            String key = key();
            HttpResponse<byte[]> first = http().post(route, "{}", "Idempotency-Key", key, "X-User", "alice");
            HttpResponse<byte[]> second = http().post(route, "{}", "Idempotency-Key", key, "X-User", "alice");
            assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).as(route).isEmpty();
            assertThat(second.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).as(route).isEmpty();
            assertThat(handler().executions(route, key)).as(route).isEqualTo(2);
        }
    }

    @Test
    void aResponseLargerThanTheStoreCanHoldIsAnsweredAsNotStoredOnEveryCall() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = http().post("/api/huge", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> retry = http().post("/api/huge", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertProblem(first, 500, "outcome-not-stored");
        assertProblem(retry, 500, "outcome-not-stored");
        assertThat(handler().executions("/api/huge", key)).isEqualTo(1);
    }

    @Test
    void anotherSpellingOfThePathIsTheSameIntent() throws Exception {
        String key = key();
        HttpResponse<byte[]> first = charge(key, "{\"amount\":7}", "alice");
        for (String spelling : List.of("/api/charges;v=1", "/api/char%67es", "/api/%63harges;x=y")) {
            HttpResponse<byte[]> again = http().post(spelling, "{\"amount\":7}", "Idempotency-Key", key,
                    "X-User", "alice");
            assertThat(again.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).as(spelling)
                    .hasValue("replayed");
            assertThat(again.body()).as(spelling).isEqualTo(first.body());
        }
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void malformedJsonIs400AndStoresNothing() throws Exception {
        String key = key();
        HttpResponse<byte[]> malformed = charge(key, "{\"amount\":", "alice");
        HttpResponse<byte[]> duplicateMember = charge(key, "{\"a\":1,\"a\":2}", "alice");
        HttpResponse<byte[]> valid = charge(key, "{\"amount\":1}", "alice");

        assertProblem(malformed, 400, "invalid-request");
        assertProblem(duplicateMember, 400, "invalid-request");
        assertThat(valid.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void tooLargeBodyIs413AndStoresNothing() throws Exception {
        String key = key();
        String big = "{\"pad\":\"" + "x".repeat(MAX_BODY) + "\"}";
        HttpResponse<byte[]> r = charge(key, big, "alice");

        assertProblem(r, 413, "request-too-large");
        assertThat(handler().executions("/api/charges", key)).isZero();
        assertThat(charge(key, "{}", "alice").headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS))
                .hasValue("stored");
    }

    @Test
    void aBodyOfExactlyTheLimitIsAccepted() throws Exception {
        String exact = "{\"pad\":\"" + "x".repeat(MAX_BODY - 10) + "\"}";
        assertThat(exact).hasSize(MAX_BODY);

        HttpResponse<byte[]> r = charge(key(), exact, "alice");

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
    }

    @Test
    void unauthenticatedCallerIs401AndRunsNothing() throws Exception {
        String key = key();
        HttpResponse<byte[]> r = http().post("/anon/charges", "{}", "Idempotency-Key", key);

        assertProblem(r, 401, "unauthenticated");
        assertThat(handler().executions("/anon/charges", key)).isZero();
    }

    @Test
    void nonJsonBodiesAreFingerprintedRaw() throws Exception {
        String key = key();
        byte[] payload = {0, 1, 2, (byte) 0xFF, 3};
        HttpResponse<byte[]> a = http().send("POST", "/api/binary", payload, "Content-Type", "application/octet-stream",
                "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http().send("POST", "/api/binary", payload, "Content-Type", "application/octet-stream",
                "Idempotency-Key", key, "X-User", "alice");
        byte[] other = Arrays.copyOf(payload, payload.length);
        other[0] = 9;
        HttpResponse<byte[]> c = http().send("POST", "/api/binary", other, "Content-Type", "application/octet-stream",
                "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.body()).containsExactly(3, (byte) 0xFF, 2, 1, 0);
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(b.body()).isEqualTo(a.body());
        assertProblem(c, 422, "key-reused");
    }

    @Test
    void anEmptyResponseIsStoredWithItsHeaders() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http().post("/api/empty", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http().post("/api/empty", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(204);
        assertThat(b.statusCode()).isEqualTo(204);
        assertThat(b.body()).isEmpty();
        assertThat(b.headers().firstValue("X-Count")).hasValue("1");
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
    }

    @Test
    void theHandlerSeesTheExecutionContext() throws Exception {
        String key = key();
        HttpResponse<byte[]> r = http().post("/api/context", "{}", "Idempotency-Key", key, "X-User", "carol");

        assertThat(Http.text(r)).matches("1 [A-Za-z0-9_-]{43} (test:)?carol POST /api/context");
    }

    @Test
    void aDifferentQueryIsADifferentRequest() throws Exception {
        String key = key();
        charge(key, "{}", "alice");
        HttpResponse<byte[]> r = http().post("/api/charges?expand=true", "{}", "Idempotency-Key", key, "X-User",
                "alice");

        assertProblem(r, 422, "key-reused");
    }

    // ---- the caller's budget: X-Request-Timeout

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "-0", "+5", "abc", "1.5", "1e3", "5s", "5 S", "123456789",
        "999999999999999999999999999", "1,2", "0x10"})
    void aMalformedRequestTimeoutIs400AndStoresNothing(String header) throws Exception {
        String key = key();
        HttpResponse<byte[]> r = http().post("/api/charges", "{}", "Idempotency-Key", key, "X-Request-Timeout", header,
                "X-User", "alice");

        assertProblem(r, 400, "invalid-request-timeout");
        assertThat(Http.text(r)).contains("X-Request-Timeout");
        assertThat(handler().executions("/api/charges", key)).isZero();
        assertThat(charge(key, "{}", "alice").headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS))
                .as("nothing was stored for the key").hasValue("stored");
    }

    @Test
    void aRepeatedRequestTimeoutIs400() throws Exception {
        String key = key();
        HttpResponse<byte[]> r = http().post("/api/charges", "{}", "Idempotency-Key", key, "X-Request-Timeout", "5000",
                "X-Request-Timeout", "5000", "X-User", "alice");

        assertProblem(r, 400, "invalid-request-timeout");
        assertThat(handler().executions("/api/charges", key)).isZero();
    }

    @Test
    void aSpentBudgetIs504BeforeAnythingIsClaimed() throws Exception {
        String key = key();
        HttpResponse<byte[]> spent = http().post("/api/charges", "{\"amount\":3}", "Idempotency-Key", key,
                "X-Request-Timeout", "0", "X-User", "alice");

        assertProblem(spent, 504, "deadline-exceeded");
        assertThat(spent.headers().firstValue("Retry-After")).isEmpty();
        assertThat(handler().executions("/api/charges", key)).isZero();
        // Nothing was stored: the same request with time left runs, once.
        HttpResponse<byte[]> retry = http().post("/api/charges", "{\"amount\":3}", "Idempotency-Key", key,
                "X-Request-Timeout", "30000", "X-User", "alice");
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(handler().executions("/api/charges", key)).isEqualTo(1);
    }

    @Test
    void anAbsurdlyLargeBudgetIsReadAsTheLongestAndTheRequestRuns() throws Exception {
        String key = key();
        HttpResponse<byte[]> r = http().post("/api/deadline", "{}", "Idempotency-Key", key,
                "X-Request-Timeout", "99999999H", "X-User", "alice");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(Long.parseLong(Http.text(r))).isGreaterThan(Duration.ofDays(3649).toMillis())
                .isLessThanOrEqualTo(Duration.ofDays(3650).toMillis());
    }

    @Test
    void theHandlerSeesTheDeadlineOfItsCallersBudget() throws Exception {
        HttpResponse<byte[]> millis = http().post("/api/deadline", "{}", "Idempotency-Key", key(),
                "X-Request-Timeout", " 60000 ", "X-User", "alice");
        HttpResponse<byte[]> minutes = http().post("/api/deadline", "{}", "Idempotency-Key", key(),
                "X-Request-Timeout", "2M", "X-User", "alice");
        HttpResponse<byte[]> none = http().post("/api/deadline", "{}", "Idempotency-Key", key(), "X-User", "alice");

        assertThat(Long.parseLong(Http.text(millis))).isBetween(1L, 60_000L);
        assertThat(Long.parseLong(Http.text(minutes))).isBetween(60_001L, 120_000L);
        assertThat(Http.text(none)).isEqualTo("none");
    }

    @Test
    void aHandlerThatOutlivesItsCallersBudgetStillHasItsResponseStoredAndReplayed() throws Exception {
        String key = key();
        HttpResponse<byte[]> late = http().post("/api/outlive", "{}", "Idempotency-Key", key,
                "X-Request-Timeout", "300", "X-User", "alice");
        HttpResponse<byte[]> retry = http().post("/api/outlive", "{}", "Idempotency-Key", key,
                "X-Request-Timeout", "5000", "X-User", "alice");

        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(retry.body()).isEqualTo(late.body());
        assertThat(handler().executions("/api/outlive", key)).isEqualTo(1);
    }

    @Test
    void aDuplicateWaitsNoLongerThanItsBudgetAndAnswers409WithRetryAfter() throws Exception {
        // /final/ lets duplicates wait 20 s: only the 1.5 s budget ends it before that.
        Held held = duplicateWhileHeld("/final/slow", "X-Request-Timeout", "1500");

        assertHeldThenReplayed(held);
        assertThat(held.duplicateTook()).isGreaterThanOrEqualTo(Duration.ofMillis(1500))
                .isLessThan(WAITING_ENGINE_WAIT);
    }

    @Test
    void theBudgetIsReadOnlyOnCoveredRequests() throws Exception {
        HttpResponse<byte[]> get = http().send("GET", "/api/thing", null, "Idempotency-Key", key(),
                "X-Request-Timeout", "not a budget", "X-User", "alice");
        HttpResponse<byte[]> optional = http().post("/api/budget/optional", "{}", "X-Request-Timeout", "0",
                "X-User", "alice");

        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(optional.statusCode()).as("no key on an optional route: idem does not cover it").isEqualTo(200);
        assertThat(handler().executions("/api/budget/optional", "null")).isEqualTo(1);
    }

    @Test
    void builderRejectsSafeMethods() {
        assertThatThrownBy(() -> HttpIdempotency.builder(engine(store())).methods("POST", "GET"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GET");
    }
}
