package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.HeldNonBlockingStore;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A store with a non-blocking form keeps it when observed, and each of its calls is one
 * {@value IdempotencyObservation#STORE} observation that stops when the call's stage completes.
 */
class ObservedNonBlockingStoreTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ObservationRegistry registry = ObservationRegistry.create();
    private final IdempotencyObservation observation;
    private final HeldNonBlockingStore held = new HeldNonBlockingStore(MemoryIdempotencyStore.create());

    ObservedNonBlockingStoreTest() {
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        observation = IdempotencyObservation.builder(registry).storeKind("held").build();
    }

    private long stored(String operation, String status) {
        Timer t = meters.find(IdempotencyObservation.STORE).tags(IdempotencyObservation.STORE_OPERATION, operation,
                IdempotencyObservation.CLAIM_STATUS, status).timer();
        return t == null ? 0 : t.count();
    }

    @Test
    void anAsyncCallIsMeasuredUntilItsStageCompletesNotUntilItIsReturned() throws Exception {
        IdempotencyStore observed = observation.wrap(held);
        NonBlockingStore form = observed.nonBlocking().orElseThrow();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "k");
        CompletionStage<ClaimResult> claim = form.claim(key, new byte[] {1}, 7, Duration.ofMinutes(1),
                Duration.ofHours(1));
        assertThat(stored("claim", "ACQUIRED") + stored("claim", "none")).as("stopped before the store answered")
                .isZero();
        held.open();
        assertThat(claim.toCompletableFuture().get(10, TimeUnit.SECONDS).claimed()).isTrue();
        assertThat(stored("claim", "ACQUIRED")).isEqualTo(1);
    }

    @Test
    void aFailedStageStopsItsObservationWithTheError() throws Exception {
        NonBlockingStore form = observation.wrap(held).nonBlocking().orElseThrow();
        CompletionStage<Optional<StoredRecord>> find = form.find(IdempotencyKey.of("s", "op", "k"));
        held.fail(new StoreUnavailableException("down", null, true));
        assertThat(find.toCompletableFuture()).failsWithin(Duration.ofSeconds(10));
        Timer t = meters.find(IdempotencyObservation.STORE).tags(IdempotencyObservation.STORE_OPERATION, "find",
                "error", "StoreUnavailableException").timer();
        assertThat(t).as("a find timer tagged with the error").isNotNull();
        assertThat(t.count()).isEqualTo(1);
    }

    @Test
    void theEnginesAsyncCallsThroughAnObservedStoreAreObserved() throws Exception {
        held.open();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(observation.wrap(held)).build();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "async");
        Result<String> result = engine.executeAsync(key, "{}", String.class,
                ctx -> CompletableFuture.completedFuture("v")).get(30, TimeUnit.SECONDS);
        assertThat(result.value()).isEqualTo("v");
        assertThat(held.formCalls()).as("calls through the non-blocking form").isPositive();
        assertThat(stored("claim", "ACQUIRED")).isEqualTo(1);
        assertThat(stored("complete", "none")).isEqualTo(1);
    }
}
