package dev.idem.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.DeadlineExceededException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import dev.idem.engine.CallOptions;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IncomingRequest;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The budget in the shared flow, on the engine's simulated ticker: counted from when the headers
 * are read, so a body that takes the whole budget to arrive is refused before anything is claimed,
 * with the same problem as a budget spent on arrival.
 */
class BudgetFlowTest {
    private final AtomicLong nanos = new AtomicLong();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(nanos::get).build();
    private final Processor processor = new Processor(HttpIdempotency.builder(engine)
            .principals(r -> Optional.of("alice")).build());
    private final AtomicInteger ran = new AtomicInteger();

    @AfterEach
    void close() {
        engine.close();
    }

    /** A request whose body takes {@code bodyTakes} to arrive, by the engine's ticker. */
    private final class Exchange implements Processor.Exchange {
        final Map<String, List<String>> headers;
        final Duration bodyTakes;
        StoredResponse sent;

        Exchange(Duration bodyTakes, String... headers) {
            this.bodyTakes = bodyTakes;
            this.headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 0; i < headers.length; i += 2) {
                this.headers.computeIfAbsent(headers[i], k -> new java.util.ArrayList<>()).add(headers[i + 1]);
            }
        }

        @Override
        public IncomingRequest request() {
            return new IncomingRequest() {
                @Override
                public String method() {
                    return "POST";
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
                    return headers.getOrDefault(name, List.of());
                }

                @Override
                public Optional<String> authenticatedUser() {
                    return Optional.of("alice");
                }
            };
        }

        @Override
        public byte[] readBody(int limit) {
            nanos.addAndGet(bodyTakes.toNanos());
            return "{}".getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void passThrough() {
            throw new AssertionError("a covered request passed through");
        }

        @Override
        public StoredResponse proceed(byte[] body, ExecutionContext context, int maxResponseBytes) {
            ran.incrementAndGet();
            String left = context.deadline().map(d -> Long.toString(d.remaining().toMillis())).orElse("none");
            return new StoredResponse(201, Map.of(), left.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void send(StoredResponse response, Map<String, String> extraHeaders) {
            sent = response;
        }
    }

    private static String text(StoredResponse r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aBodyThatTakesTheWholeBudgetIsRefusedBeforeTheClaim() throws Exception {
        Exchange slowBody = new Exchange(Duration.ofSeconds(3), "Idempotency-Key", "k1", "X-Request-Timeout", "2000");
        Exchange spent = new Exchange(Duration.ZERO, "Idempotency-Key", "k2", "X-Request-Timeout", "0");

        processor.handle(slowBody);
        processor.handle(spent);

        assertThat(slowBody.sent.status()).isEqualTo(504);
        assertThat(text(slowBody.sent)).contains("\"type\":\"https://idem.dev/problems/deadline-exceeded\"");
        assertThat(slowBody.sent).as("the engine's refusal reads as the admission's").isEqualTo(spent.sent);
        assertThat(ran).hasValue(0);
        assertThat(store.find(IdempotencyKey.of("alice", "POST /charges", "k1"))).isEmpty();
    }

    @Test
    void theHandlerSeesWhatTheBodyLeftOfTheBudget() throws Exception {
        Exchange ex = new Exchange(Duration.ofMillis(1500), "Idempotency-Key", "k3", "X-Request-Timeout", "2S");

        processor.handle(ex);

        assertThat(ex.sent.status()).isEqualTo(201);
        assertThat(text(ex.sent)).isEqualTo("500");
    }

    @Test
    void anEngineRefusalMapsTo504AndSharedOptionsCannotCarryADeadline() {
        StoredResponse problem = processor.problemFor(new DeadlineExceededException(
                IdempotencyKey.of("s", "o", "k"), true));
        assertThat(problem.status()).isEqualTo(504);
        assertThat(problem.headers()).doesNotContainKey("Retry-After");

        CallOptions fixed = CallOptions.builder().deadline(Deadline.after(Duration.ofSeconds(1))).build();
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).callOptions(fixed))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("X-Request-Timeout");
    }
}
