package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.micrometer.IdempotencyObservation;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Lettuce store decorated with Micrometer's observation keeps its non-blocking form, and the
 * engine's asynchronous calls through it are measured, one timer sample per store call.
 */
@Timeout(60)
class ObservedLettuceNonBlockingTest {
    @Test
    void theObservedLettuceStoreKeepsItsNonBlockingFormAndMeasuresItsCalls() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        IdempotencyStore observed = IdempotencyObservation.builder(registry).storeKind("redis").build()
                .wrap(RedisIdempotencyStore.create(Client.LETTUCE.standalone(0)));
        assertThat(observed.nonBlocking()).isPresent();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(observed).build();
        IdempotencyKey key = IdempotencyKey.of("observed-" + UUID.randomUUID(), "op", "k");
        for (int i = 0; i < 2; i++) {
            assertThat(engine.executeAsync(key, "{}", String.class, ctx -> CompletableFuture.completedFuture("v"))
                    .get(30, TimeUnit.SECONDS).value()).isEqualTo("v");
        }
        assertThat(count(meters, "claim", "ACQUIRED")).isEqualTo(1);
        assertThat(count(meters, "claim", "EXISTING")).isEqualTo(1);
        assertThat(count(meters, "complete", "none")).isEqualTo(1);
    }

    private static long count(SimpleMeterRegistry meters, String operation, String status) {
        Timer t = meters.find(IdempotencyObservation.STORE).tags(IdempotencyObservation.STORE_OPERATION, operation,
                IdempotencyObservation.CLAIM_STATUS, status).timer();
        return t == null ? 0 : t.count();
    }
}
