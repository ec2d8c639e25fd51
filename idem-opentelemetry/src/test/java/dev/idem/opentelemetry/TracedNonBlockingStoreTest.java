package dev.idem.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.HeldNonBlockingStore;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store with a non-blocking form keeps it when traced, and each of its calls is one span that
 * ends when the call's stage completes.
 */
class TracedNonBlockingStoreTest {
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    private final HeldNonBlockingStore held = new HeldNonBlockingStore(MemoryIdempotencyStore.create());
    private final IdempotencyKey key = IdempotencyKey.of("tenant", "create-charge", "k");

    @AfterEach
    void shutDown() {
        provider.close();
    }

    private List<String> ended() {
        return exporter.getFinishedSpanItems().stream().map(SpanData::getName).collect(Collectors.toList());
    }

    @Test
    void anAsyncCallsSpanEndsWhenItsStageCompletesNotWhenItIsReturned() throws Exception {
        NonBlockingStore form = IdempotencyTracing.create(otel).wrap(held).nonBlocking().orElseThrow();
        CompletionStage<ClaimResult> claim = form.claim(key, new byte[] {1}, 7, Duration.ofMinutes(1),
                Duration.ofHours(1));
        assertThat(ended()).as("ended before the store answered").isEmpty();
        held.open();
        assertThat(claim.toCompletableFuture().get(10, TimeUnit.SECONDS).claimed()).isTrue();
        SpanData span = exporter.getFinishedSpanItems().get(0);
        assertThat(span.getName()).isEqualTo("idem.store.claim");
        assertThat(span.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                TracingIdempotencyStore.CLAIM_STATUS))).isEqualTo("ACQUIRED");
    }

    @Test
    void aFailedStageEndsItsSpanWithAnError() {
        NonBlockingStore form = IdempotencyTracing.create(otel).wrap(held).nonBlocking().orElseThrow();
        CompletionStage<Optional<StoredRecord>> find = form.find(key);
        held.fail(new StoreUnavailableException("down", null, true));
        assertThat(find.toCompletableFuture()).failsWithin(Duration.ofSeconds(10));
        SpanData span = exporter.getFinishedSpanItems().get(0);
        assertThat(span.getName()).isEqualTo("idem.store.find");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getStatus().getDescription()).isEqualTo("StoreUnavailableException");
    }

    @Test
    void theEnginesAsyncCallsThroughATracedStoreAreTraced() throws Exception {
        held.open();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(IdempotencyTracing.create(otel).wrap(held))
                .build();
        assertThat(engine.executeAsync(key, "{}", String.class, ctx -> CompletableFuture.completedFuture("v"))
                .get(30, TimeUnit.SECONDS).value()).isEqualTo("v");
        assertThat(held.formCalls()).as("calls through the non-blocking form").isPositive();
        assertThat(ended()).contains("idem.store.claim", "idem.store.complete");
    }
}
