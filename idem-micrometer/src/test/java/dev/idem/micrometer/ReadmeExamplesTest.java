package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxRecord;
import dev.idem.outbox.jdbc.Publisher;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The README's examples, run as printed. */
class ReadmeExamplesTest {
    record Charge(String id) {
    }

    private final MeterRegistry meterRegistry = new SimpleMeterRegistry();
    private final IdempotencyStore store = MemoryIdempotencyStore.create();
    private final IdempotencyKey key = IdempotencyKey.of("alice", "POST /charges", "k-1");
    private final String request = "{\"amount\":10}";

    @Test
    void observations() {
        ObservationRegistry observationRegistry = ObservationRegistry.create();
        observationRegistry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
        Work<Charge> work = ctx -> new Charge("c1");
        // tag::observation[]
        IdempotencyObservation observation = IdempotencyObservation.builder(observationRegistry).storeKind("jdbc").build();
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(observation.wrap(store))         // an idem.store observation per round trip
                .listener(observation.listener())      // outcomes onto the call's observation
                .build();
        Result<Charge> r = observation.observe("POST /charges", key, () -> engine.execute(key, request, Charge.class, work));
        // end::observation[]
        assertThat(r.value()).isEqualTo(new Charge("c1"));
        assertThat(meterRegistry.find(IdempotencyObservation.EXECUTION).tag(IdempotencyObservation.OUTCOME, "executed")
                .timer()).isNotNull();
    }

    @Test
    void meters() {
        // tag::meters[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                .listener(IdempotencyMetrics.bind(meterRegistry, store))
                .build();
        // end::meters[]
        engine.execute(key, request, Charge.class, ctx -> new Charge("c1"));
        assertThat(meterRegistry.find("idem.events").counters()).isNotEmpty();
    }

    @Test
    void relay() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:readme-relay-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        Outbox outbox = Outbox.builder(ds).build().createTableIfNotExists();
        List<OutboxRecord> sent = new ArrayList<>();
        Publisher publisher = sent::add;
        // tag::relay[]
        Relay relay = outbox.relay(publisher)
                .listener(RelayMetrics.bind(meterRegistry, outbox))   // or RelayMetrics.builder(..).clock(..)
                .build();
        // end::relay[]
        assertThat(relay).isNotNull();
        assertThat(meterRegistry.find(RelayMetrics.BATCH).meters()).isNotNull();
        assertThat(meterRegistry.find("idem.outbox.pending").gauge()).isNotNull();
    }
}
