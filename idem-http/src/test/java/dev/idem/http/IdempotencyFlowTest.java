package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The public flow over an in-memory exchange: the calls an adapter sees, in order. The contract
 * itself is checked over real servers by {@link AbstractHttpContract} (idem-jaxrs runs it on this API).
 */
class IdempotencyFlowTest {
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
    private final IdempotencyFlow flow = IdempotencyFlow.of(HttpIdempotency.builder(engine).build());

    /** One request; records what the flow asked of it. */
    private static class Recorded implements IdempotencyFlow.Exchange, IncomingRequest {
        final String method;
        final Map<String, String> headers;
        final byte[] body;
        final Function<byte[], CompletionStage<BufferedResponse>> handler;
        final List<String> calls = new ArrayList<>();
        BufferedResponse sent;
        Map<String, String> extra;
        int cap;

        Recorded(String method, Map<String, String> headers, String body,
                Function<byte[], CompletionStage<BufferedResponse>> handler) {
            this.method = method;
            this.headers = headers;
            this.body = body.getBytes(StandardCharsets.UTF_8);
            this.handler = handler;
        }

        @Override
        public IncomingRequest request() {
            return this;
        }

        @Override
        public String method() {
            return method;
        }

        @Override
        public String path() {
            return "/charges";
        }

        @Override
        public String query() {
            return "";
        }

        @Override
        public List<String> headers(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                    .toList();
        }

        @Override
        public Optional<String> authenticatedUser() {
            return Optional.ofNullable(headers.get("X-User"));
        }

        @Override
        public CompletionStage<byte[]> readBody(int limit) {
            calls.add("readBody");
            return CompletableFuture.completedFuture(body);
        }

        @Override
        public CompletionStage<Void> passThrough() {
            calls.add("passThrough");
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<BufferedResponse> proceed(byte[] body, ExecutionContext context, int maxResponseBytes) {
            calls.add("proceed");
            cap = maxResponseBytes;
            return handler.apply(body);
        }

        @Override
        public CompletionStage<Void> send(BufferedResponse response, Map<String, String> extraHeaders) {
            calls.add("send");
            sent = response;
            extra = extraHeaders;
            return CompletableFuture.completedFuture(null);
        }
    }

    private static Recorded post(String key, String body, Function<byte[], CompletionStage<BufferedResponse>> handler) {
        return new Recorded("POST", Map.of("Idempotency-Key", key, "X-User", "alice", "Content-Type",
                "application/json"), body, handler);
    }

    private static CompletionStage<BufferedResponse> created(byte[] body) {
        return CompletableFuture.completedFuture(new BufferedResponse(201,
                Map.of("Content-Type", List.of("application/json"), "X-Trace", List.of("t1")), body));
    }

    private void run(Recorded exchange) throws Exception {
        flow.handle(exchange).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theFirstCallRunsTheHandlerAndARetryIsAReplayOfTheStoredHeadersAndBody() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Function<byte[], CompletionStage<BufferedResponse>> handler = body -> {
            runs.incrementAndGet();
            return created(body);
        };
        Recorded first = post("k1", "{\"a\":1}", handler);
        Recorded retry = post("k1", "{ \"a\" : 1 }", handler);

        run(first);
        run(retry);

        assertThat(first.calls).containsExactly("readBody", "proceed", "send");
        assertThat(first.sent.status()).isEqualTo(201);
        assertThat(first.sent.headers()).containsKey("X-Trace");
        assertThat(first.extra).containsEntry(HttpIdempotency.IDEMPOTENCY_STATUS, "stored");
        assertThat(retry.calls).containsExactly("readBody", "send");
        assertThat(retry.sent.body()).isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(retry.sent.headers()).containsOnlyKeys("Content-Type");
        assertThat(retry.extra).containsEntry(HttpIdempotency.IDEMPOTENCY_STATUS, "replayed");
        assertThat(runs).hasValue(1);
        assertThat(first.cap).isPositive();
    }

    @Test
    void uncoveredMethodsPassThroughUnread() throws Exception {
        Recorded get = new Recorded("GET", Map.of("Idempotency-Key", "k2"), "", IdempotencyFlowTest::created);

        run(get);

        assertThat(get.calls).containsExactly("passThrough");
    }

    @Test
    void aHandlerStageThatFailsIsA500ProblemAndReleasesTheKey() throws Exception {
        Recorded failing = post("k3", "{}", body -> CompletableFuture.failedFuture(new IllegalStateException("down")));
        Recorded retry = post("k3", "{}", IdempotencyFlowTest::created);

        run(failing);
        run(retry);

        assertThat(failing.sent.status()).isEqualTo(500);
        assertThat(new String(failing.sent.body(), StandardCharsets.UTF_8)).contains("handler-failed");
        assertThat(retry.calls).contains("proceed");
        assertThat(retry.sent.status()).isEqualTo(201);
    }

    @Test
    void aDroppedResponseAbandonsTheKeyNeitherReleasedNorStored() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Recorded dropped = post("k5", "{}", body -> {
            runs.incrementAndGet();
            return CompletableFuture.failedFuture(new IdempotencyFlow.ResponseDropped("the client left"));
        });
        Recorded retry = post("k5", "{}", body -> {
            runs.incrementAndGet();
            return created(body);
        });

        assertThatThrownBy(() -> run(dropped)).hasCauseInstanceOf(CancellationException.class);
        run(retry);

        assertThat(dropped.calls).as("nobody to answer").containsExactly("readBody", "proceed");
        assertThat(retry.calls).as("the key is still claimed: the effect may have happened").doesNotContain("proceed");
        assertThat(retry.sent.status()).isEqualTo(409);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aResponseWhoseSendingFailsIsStoredAndReplayedAndTheOwnResponseIsSentAsItself() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        BufferedResponse own = new BufferedResponse(201, Map.of("Content-Type", List.of("application/json")),
                "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
        Recorded first = new Recorded("POST", Map.of("Idempotency-Key", "k6", "X-User", "alice", "Content-Type",
                "application/json"), "{}", body -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(own);
        }) {
            @Override
            public CompletionStage<Void> send(BufferedResponse response, Map<String, String> extraHeaders) {
                super.send(response, extraHeaders);
                return CompletableFuture.failedFuture(new java.io.IOException("broken pipe"));
            }
        };
        Recorded retry = post("k6", "{}", IdempotencyFlowTest::created);

        assertThatThrownBy(() -> run(first)).hasRootCauseInstanceOf(java.io.IOException.class);
        run(retry);

        assertThat(first.sent).as("the handler's own response, as the adapter gave it").isSameAs(own);
        assertThat(retry.calls).doesNotContain("proceed");
        assertThat(retry.extra).containsEntry(HttpIdempotency.IDEMPOTENCY_STATUS, "replayed");
        assertThat(retry.sent.body()).isEqualTo(own.body());
        assertThat(runs).hasValue(1);
    }

    @Test
    void aMalformedKeyIsAnsweredAfterTheBodyWasDrained() throws Exception {
        Recorded bad = new Recorded("POST", Map.of("Idempotency-Key", "a b", "X-User", "alice"), "{}",
                IdempotencyFlowTest::created);

        run(bad);

        assertThat(bad.calls).containsExactly("readBody", "send");
        assertThat(bad.sent.status()).isEqualTo(400);
        assertThat(bad.sent.headers().get("Content-Type")).containsExactly("application/problem+json");
    }

    @Test
    void theBodyBufferKeepsNoMoreThanItsCap() {
        var buffer = BufferedResponse.bodyBuffer(3);
        buffer.writeBytes(new byte[] {1, 2, 3, 4, 5});

        assertThat(buffer.toByteArray()).containsExactly(1, 2, 3);
    }

    @Test
    void anAuthenticatedUserBeatsTheFallbackHeader() {
        PrincipalResolver rule = PrincipalResolver.authenticatedUser().orElse(PrincipalResolver.apiKeyHeader("X-Api-Key"));
        Recorded user = new Recorded("POST", Map.of("X-User", "alice", "X-Api-Key", "k"), "", IdempotencyFlowTest::created);
        Recorded keyOnly = new Recorded("POST", Map.of("X-Api-Key", "k"), "", IdempotencyFlowTest::created);
        Recorded nobody = new Recorded("POST", Map.of("X-User", ""), "", IdempotencyFlowTest::created);

        assertThat(rule.resolve(user)).hasValue("alice");
        assertThat(rule.resolve(keyOnly)).hasValueSatisfying(p -> assertThat(p).startsWith("api-key:"));
        assertThat(rule.resolve(nobody)).isEmpty();
    }
}
