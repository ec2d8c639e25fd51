package dev.idem.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotencyTracingTest {
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    private final Tracer tracer = otel.getTracer("test");
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();

    @AfterEach
    void shutDown() {
        provider.close();
    }

    private IdempotencyEngine engine(IdempotencyTracing tracing, IdempotencyStore store) {
        return IdempotencyEngine.builder().store(tracing.wrap(store)).clock(clock).lease(Duration.ofSeconds(30))
                .listener(tracing).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-9", "create-charge", k);
    }

    /** Runs {@code call} inside a server span named {@code name}, like an instrumented HTTP server would. */
    @SuppressWarnings("try") // the scope makes the span current during the call
    private <T> T inRequest(String name, Supplier<T> call) {
        Span span = tracer.spanBuilder(name).setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return call.get();
        } finally {
            span.end();
        }
    }

    private SpanData span(String name) {
        List<SpanData> found = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name))
                .collect(Collectors.toList());
        assertThat(found).as("spans named " + name).hasSize(1);
        return found.get(0);
    }

    private List<String> children(SpanData parent) {
        return exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getParentSpanId().equals(parent.getSpanId()))
                .map(SpanData::getName).collect(Collectors.toList());
    }

    @Test
    void theCurrentSpanCarriesTheOutcomeAndStoreRoundTripsAreChildSpans() {
        IdempotencyEngine engine = engine(IdempotencyTracing.create(otel), memory);
        inRequest("first", () -> engine.execute(key("card-secret-1"), "{}", ctx -> "ok"));
        inRequest("retry", () -> engine.execute(key("card-secret-1"), "{}", ctx -> "again"));

        SpanData first = span("first");
        assertThat(first.getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("executed");
        assertThat(first.getAttributes().get(IdempotencyTracing.ATTEMPT_KEY)).isEqualTo(1L);
        assertThat(first.getAttributes().get(IdempotencyTracing.OPERATION_KEY)).isEqualTo("create-charge");
        String hash = IdempotencyTracing.keyHash("tenant-9", "create-charge", "card-secret-1");
        assertThat(hash).hasSize(32);
        assertThat(first.getAttributes().get(IdempotencyTracing.KEY_HASH_KEY)).isEqualTo(hash);
        assertThat(first.getEvents()).extracting(EventData::getName).containsExactly("idem.executed");
        assertThat(children(first)).containsExactly("idem.store.claim", "idem.store.complete");
        SpanData claim = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("idem.store.claim"))
                .findFirst().orElseThrow();
        assertThat(claim.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(claim.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                TracingIdempotencyStore.STORE_KIND))).isEqualTo("memory");

        SpanData retry = span("retry");
        assertThat(retry.getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("replayed");
        assertThat(retry.getAttributes().get(IdempotencyTracing.KEY_HASH_KEY)).isEqualTo(hash);
        assertThat(children(retry)).containsExactly("idem.store.claim");

        for (SpanData s : exporter.getFinishedSpanItems()) {
            assertThat(s.getAttributes().toString()).doesNotContain("card-secret-1").doesNotContain("tenant-9");
            assertThat(s.getEvents().toString()).doesNotContain("card-secret-1");
        }
    }

    @Test
    void conflictsReuseAndTakeoverAreRecorded() {
        IdempotencyEngine engine = engine(IdempotencyTracing.create(otel), memory);
        inRequest("outer", () -> engine.execute(key("b"), "{}", ctx -> {
            inRequest("duplicate", () -> {
                assertThatThrownBy(() -> engine.execute(key("b"), "{}", inner -> "dup"))
                        .isInstanceOf(RequestInProgressException.class);
                return null;
            });
            return "first";
        }));
        inRequest("reused", () -> {
            assertThatThrownBy(() -> engine.execute(key("b"), "{\"other\":true}", ctx -> "x"))
                    .isInstanceOf(KeyReusedException.class);
            return null;
        });
        inRequest("stale", () -> {
            assertThatThrownBy(() -> engine.execute(key("c"), "{}", ctx -> {
                clock.advance(Duration.ofSeconds(31));
                inRequest("taker", () -> engine.execute(key("c"), "{}", inner -> "taker"));
                return "stale";
            })).isInstanceOf(LeaseLostException.class);
            return null;
        });

        assertThat(span("duplicate").getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("in_progress_conflict");
        assertThat(span("reused").getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("key_reused");
        SpanData taker = span("taker");
        assertThat(taker.getAttributes().get(IdempotencyTracing.TAKEOVER_KEY)).isTrue();
        assertThat(taker.getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("executed");
        assertThat(taker.getAttributes().get(IdempotencyTracing.ATTEMPT_KEY)).isEqualTo(2L);
        assertThat(taker.getEvents()).extracting(EventData::getName)
                .containsExactly("idem.lease_taken_over", "idem.executed");
        SpanData stale = span("stale");
        assertThat(stale.getAttributes().get(IdempotencyTracing.OUTCOME_KEY)).isEqualTo("lease_lost");
        assertThat(stale.getAttributes().get(IdempotencyTracing.TAKEOVER_KEY)).isNull();
    }

    @Test
    void theRawKeyIsRecordedOnlyWhenAskedFor() {
        IdempotencyEngine engine = engine(IdempotencyTracing.builder(otel).recordRawKey(true).build(), memory);
        inRequest("req", () -> engine.execute(key("visible"), "{}", ctx -> "ok"));
        assertThat(span("req").getAttributes().get(IdempotencyTracing.KEY_KEY)).isEqualTo("visible");
    }

    @Test
    void aFailingStoreCallEndsItsSpanWithAnError() {
        IdempotencyStore broken = failingStore();
        IdempotencyEngine engine = engine(IdempotencyTracing.create(otel), broken);
        inRequest("req", () -> {
            assertThatThrownBy(() -> engine.execute(key("x"), "{}", ctx -> "ok"))
                    .isInstanceOf(StoreUnavailableException.class);
            return null;
        });
        SpanData claim = span("idem.store.claim");
        assertThat(claim.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(claim.getEvents()).extracting(EventData::getName).containsExactly("exception");
    }

    @Test
    void withoutARecordingSpanNothingHappens() {
        IdempotencyEngine engine = engine(IdempotencyTracing.create(otel), memory);
        assertThat(engine.execute(key("n"), "{}", ctx -> "ok").value()).isEqualTo("ok");
        // Only the store spans (roots now) were exported; the listener had no span to annotate.
        assertThat(exporter.getFinishedSpanItems()).extracting(SpanData::getName)
                .containsExactly("idem.store.claim", "idem.store.complete");
    }

    private IdempotencyStore failingStore() {
        return new IdempotencyStore() {
            @Override
            public dev.idem.api.store.ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                    Duration lease, Duration ttl) {
                throw new StoreUnavailableException("store down", null, true);
            }

            @Override
            public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean release(IdempotencyKey key, long fencingToken) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.util.Optional<java.time.Instant> extendLease(IdempotencyKey key, long fencingToken,
                    Duration lease) {
                throw new UnsupportedOperationException();
            }

            @Override
            public java.util.Optional<dev.idem.api.store.StoredRecord> find(IdempotencyKey key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public int purgeExpired(int limit) {
                return 0;
            }

            @Override
            public dev.idem.api.store.StoreCapabilities capabilities() {
                return memory.capabilities();
            }
        };
    }

    @Test
    void aWrappedStoreIsNamedAfterTheKindGivenNotItsWrappersClass() {
        IdempotencyStore wrapper = new TracingIdempotencyStore(memory, tracer, "inner");
        IdempotencyEngine engine = engine(IdempotencyTracing.builder(otel).storeKind("jdbc").build(), wrapper);
        inRequest("call", () -> engine.execute(key("k-kind"), "{}", ctx -> "ok"));
        List<String> kinds = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("idem.store.") && s.getParentSpanId().equals(span("call").getSpanId()))
                .map(s -> s.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                        TracingIdempotencyStore.STORE_KIND)))
                .collect(Collectors.toList());
        assertThat(kinds).containsExactly("jdbc", "jdbc");
        assertThatThrownBy(() -> IdempotencyTracing.builder(otel).storeKind(" "))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theReadmeExampleGivesStoreSpansAndSpanAttributes() {
        OpenTelemetrySdk openTelemetry = otel;
        IdempotencyStore store = memory;
        // tag::readme[]
        IdempotencyTracing tracing = IdempotencyTracing.create(openTelemetry);
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(tracing.wrap(store))   // child spans idem.store.claim, .complete, .release, ...
                .listener(tracing)            // attributes and events on Span.current()
                .build();
        // end::readme[]
        inRequest("POST /charges", () -> engine.call(key("readme"), "{}", String.class, ctx -> "ok"));
        List<String> names = exporter.getFinishedSpanItems().stream().map(SpanData::getName)
                .collect(Collectors.toList());
        assertThat(names).contains("idem.store.claim", "idem.store.complete", "POST /charges");
        SpanData server = exporter.getFinishedSpanItems().stream().filter(d -> d.getName().equals("POST /charges"))
                .findFirst().orElseThrow();
        assertThat(server.getAttributes().asMap().toString()).contains("idem.outcome");
    }
}
