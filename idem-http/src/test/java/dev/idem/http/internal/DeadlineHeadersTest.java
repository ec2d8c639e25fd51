package dev.idem.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IncomingRequest;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The deadline headers a service mesh or gateway sends, read besides X-Request-Timeout when the
 * configuration names them: the shortest budget wins, malformed values are answered as a
 * malformed X-Request-Timeout is, and unnamed headers are never read.
 */
class DeadlineHeadersTest {
    private final AtomicLong nanos = new AtomicLong();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
            .ticker(nanos::get).build();

    private Processor processor(String... deadlineHeaders) {
        HttpIdempotency.Builder b = HttpIdempotency.builder(engine).principals(r -> Optional.of("alice"));
        if (deadlineHeaders.length > 0) {
            b.deadlineHeaders(deadlineHeaders);
        }
        return new Processor(b.build());
    }

    private static IncomingRequest request(String... headers) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        map.computeIfAbsent("Idempotency-Key", k -> new ArrayList<>()).add("k-1");
        for (int i = 0; i < headers.length; i += 2) {
            map.computeIfAbsent(headers[i], k -> new ArrayList<>()).add(headers[i + 1]);
        }
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
                return map.getOrDefault(name, List.of());
            }

            @Override
            public Optional<String> authenticatedUser() {
                return Optional.of("alice");
            }
        };
    }

    private static Duration budget(Processor.Admission admission) {
        assertThat(admission.rejection()).isNull();
        return admission.deadline() == null ? null : admission.deadline().remaining();
    }

    private static String rejection(Processor.Admission admission) {
        StoredResponse r = admission.rejection();
        assertThat(r).isNotNull();
        assertThat(r.status()).isEqualTo(400);
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void unnamedDeadlineHeadersAreNotRead() {
        Processor p = processor();

        assertThat(budget(p.admit(request("grpc-timeout", "1S", "x-envoy-expected-rq-timeout-ms", "5")))).isNull();
        assertThat(budget(p.admit(request("grpc-timeout", "garbage")))).isNull();
    }

    @Test
    void grpcTimeoutIsReadInItsOwnUnits() {
        Processor p = processor(HttpIdempotency.GRPC_TIMEOUT);

        assertThat(budget(p.admit(request("grpc-timeout", "3S")))).isEqualTo(Duration.ofSeconds(3));
        assertThat(budget(p.admit(request("Grpc-Timeout", "2500m")))).isEqualTo(Duration.ofMillis(2500));
        assertThat(budget(p.admit(request("grpc-timeout", "250000u")))).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void envoysExpectedTimeoutIsWholeMilliseconds() {
        Processor p = processor(HttpIdempotency.ENVOY_EXPECTED_TIMEOUT);

        assertThat(budget(p.admit(request("x-envoy-expected-rq-timeout-ms", "1500")))).isEqualTo(
                Duration.ofMillis(1500));
        assertThat(budget(p.admit(request("x-envoy-expected-rq-timeout-ms", "999999999999999999"))))
                .isEqualTo(dev.idem.api.time.Deadline.MAX_BUDGET);
    }

    @Test
    void theShortestBudgetWins() {
        Processor p = processor(HttpIdempotency.GRPC_TIMEOUT, HttpIdempotency.ENVOY_EXPECTED_TIMEOUT);

        assertThat(budget(p.admit(request("X-Request-Timeout", "4000", "grpc-timeout", "3S",
                "x-envoy-expected-rq-timeout-ms", "3500")))).isEqualTo(Duration.ofSeconds(3));
        assertThat(budget(p.admit(request("X-Request-Timeout", "900", "grpc-timeout", "3S")))).isEqualTo(
                Duration.ofMillis(900));
        assertThat(budget(p.admit(request("x-envoy-expected-rq-timeout-ms", "200", "grpc-timeout", "3S"))))
                .isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aSpentMeshBudgetIsRefusedBeforeAnythingIsClaimed() {
        Processor p = processor(HttpIdempotency.ENVOY_EXPECTED_TIMEOUT);

        StoredResponse r = p.admit(request("x-envoy-expected-rq-timeout-ms", "0")).rejection();

        assertThat(r.status()).isEqualTo(504);
    }

    @ParameterizedTest
    @ValueSource(strings = {"3", "3s", "123456789S", "-1S", "1.5S", "", "1 S"})
    void aMalformedGrpcTimeoutIs400(String value) {
        String body = rejection(processor(HttpIdempotency.GRPC_TIMEOUT).admit(request("grpc-timeout", value)));

        assertThat(body).contains("invalid-request-timeout").contains("grpc-timeout");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1500m", "1.5", "-3", "", "1234567890123456789"})
    void aMalformedEnvoyTimeoutIs400(String value) {
        String body = rejection(processor(HttpIdempotency.ENVOY_EXPECTED_TIMEOUT)
                .admit(request("x-envoy-expected-rq-timeout-ms", value)));

        assertThat(body).contains("invalid-request-timeout").contains("x-envoy-expected-rq-timeout-ms");
    }

    @Test
    void aRepeatedDeadlineHeaderIs400AndAnotherNameUsesTheBudgetHeadersFormat() {
        assertThat(rejection(processor(HttpIdempotency.GRPC_TIMEOUT).admit(request("grpc-timeout", "1S",
                "grpc-timeout", "2S")))).contains("must appear once");
        Processor custom = processor("X-Deadline-Ms");
        assertThat(budget(custom.admit(request("X-Deadline-Ms", "2S")))).isEqualTo(Duration.ofSeconds(2));
        assertThat(rejection(custom.admit(request("X-Deadline-Ms", "soon")))).contains("x-deadline-ms");
    }

    @Test
    void theBuilderRefusesTheBudgetHeaderItselfAndNonTokens() {
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).deadlineHeaders("X-Request-Timeout"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).deadlineHeaders("bad header"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(HttpIdempotency.builder(engine).deadlineHeaders("GRPC-Timeout").build().deadlineHeaders())
                .containsExactly("grpc-timeout");
    }
}
