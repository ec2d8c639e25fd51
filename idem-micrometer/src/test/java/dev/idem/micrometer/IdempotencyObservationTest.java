package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The Observation instrumentation, measured through Micrometer's own meter handler. */
class IdempotencyObservationTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ObservationRegistry registry = ObservationRegistry.create();
    private final IdempotencyObservation observation;
    private final IdempotencyEngine engine;

    IdempotencyObservationTest() {
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        observation = IdempotencyObservation.builder(registry).storeKind("memory").build();
        engine = IdempotencyEngine.builder().store(observation.wrap(MemoryIdempotencyStore.create()))
                .listener(observation.listener()).build();
    }

    private long executions(String operation, String outcome) {
        Timer t = meters.find(IdempotencyObservation.EXECUTION).tags(IdempotencyObservation.OPERATION, operation,
                IdempotencyObservation.OUTCOME, outcome, IdempotencyObservation.STORE_KIND, "memory").timer();
        return t == null ? 0 : t.count();
    }

    @Test
    void anObservedCallIsNamedAfterItsBoundedOperationWithTheEventsOutcome() {
        IdempotencyKey order1 = IdempotencyKey.of("alice", "POST /orders/1/confirm", "k");
        IdempotencyKey order2 = IdempotencyKey.of("alice", "POST /orders/2/confirm", "k");
        String route = "POST /orders/{id}/confirm";
        observation.observe(route, order1, () -> engine.execute(order1, "{}", c -> 1));
        observation.observe(route, order2, () -> engine.execute(order2, "{}", c -> 2));
        observation.observe(route, order1, () -> engine.execute(order1, "{}", c -> 3));
        assertThatThrownBy(() -> observation.observe(route, order1, () -> engine.execute(order1, "{\"x\":1}",
                c -> 4))).isInstanceOf(KeyReusedException.class);

        assertThat(executions(route, "executed")).isEqualTo(2);
        assertThat(executions(route, "replayed")).isEqualTo(1);
        assertThat(executions(route, "key_reused")).isEqualTo(1);
        // Never a raw path: one series per route, whatever ids the paths carry.
        assertThat(meters.getMeters()).map(m -> m.getId().getTag(IdempotencyObservation.OPERATION))
                .filteredOn(java.util.Objects::nonNull).containsOnly(route);
        Timer claims = meters.find(IdempotencyObservation.STORE).tags(IdempotencyObservation.STORE_OPERATION, "claim",
                IdempotencyObservation.CLAIM_STATUS, "ACQUIRED").timer();
        assertThat(claims).isNotNull();
        assertThat(claims.count()).isEqualTo(2);
    }

    @Test
    void anUnobservedCallStillCountsOncePerEventUnderItsKeysOperation() {
        IdempotencyKey key = IdempotencyKey.of("s", "create-charge", "k");
        engine.execute(key, "{}", c -> 1);
        engine.execute(key, "{}", c -> 1);
        assertThat(executions("create-charge", "executed")).isEqualTo(1);
        assertThat(executions("create-charge", "replayed")).isEqualTo(1);
    }

    @Test
    void unobservedCallsOfRawPathsStopAddingNamesPastTheBound() {
        ObservationRegistry bounded = ObservationRegistry.create();
        bounded.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        IdempotencyObservation o = IdempotencyObservation.builder(bounded).storeKind("memory").maxOperations(2)
                .build();
        IdempotencyEngine e = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .listener(o.listener()).build();
        for (int order = 0; order < 20; order++) {
            e.execute(IdempotencyKey.of("s", "POST /orders/" + order, "k"), "{}", c -> 1);
        }
        assertThat(meters.getMeters()).map(m -> m.getId().getTag(IdempotencyObservation.OPERATION))
                .filteredOn(java.util.Objects::nonNull).containsOnly("POST /orders/0", "POST /orders/1",
                        IdempotencyMetrics.OTHER_OPERATION);
        assertThat(executions(IdempotencyMetrics.OTHER_OPERATION, "executed")).isEqualTo(18);
        assertThatThrownBy(() -> IdempotencyObservation.builder(bounded).maxOperations(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCallInsideAnObservedOneIsNotMistakenForIt() {
        IdempotencyKey outer = IdempotencyKey.of("s", "outer", "k");
        IdempotencyKey inner = IdempotencyKey.of("s", "inner", "k");
        engine.execute(inner, "{}", c -> 0);
        observation.observe("outer-op", outer, () -> engine.execute(outer, "{}",
                c -> engine.execute(inner, "{}", d -> 1).value()));
        assertThat(executions("outer-op", "executed")).isEqualTo(1);
        assertThat(executions("inner", "replayed")).isEqualTo(1);
    }

    @Test
    void outcomesUseTheOneVocabularyOfTheEngine() {
        assertThat(Arrays.stream(IdempotencyEvent.Type.values()).map(IdempotencyMetrics::outcome))
                .containsExactly("executed", "replayed", "in_progress_conflict", "key_reused", "lease_taken_over",
                        "lease_lost", "released_on_transient_failure", "final_failure_stored", "outcome_not_stored",
                        "deadline_exceeded");
        for (Meter m : meters.getMeters()) {
            assertThat(m.getId().getName()).startsWith("idem.");
        }
    }
}
