package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IdempotencyMetricsTest {
    private final MutableClock clock = new MutableClock();
    // Every reading advances 5 ms, so each recorded duration is an exact multiple of it.
    private final AtomicLong nanos = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).maxOutcomeBytes(64)
            .build();

    private IdempotencyEngine engine(IdempotencyMetrics metrics) {
        return IdempotencyEngine.builder().store(store).clock(clock)
                .ticker(() -> nanos.addAndGet(5_000_000))
                .lease(Duration.ofSeconds(30))
                .failureClassifier(e -> e instanceof IllegalArgumentException
                        ? FailureDecision.finalFailure("declined", e.getMessage())
                        : FailureDecision.transientFailure())
                .listener(metrics).build();
    }

    private static IdempotencyKey key(String tenant, String k) {
        return IdempotencyKey.of(tenant, "create-charge", k);
    }

    private double count(String outcome) {
        return registry.get(IdempotencyMetrics.EVENTS).tags("outcome", outcome, "operation", "create-charge",
                "store", "memory").counter().count();
    }

    @Test
    void everyOutcomeIsCountedExactlyAndTimed() {
        IdempotencyEngine engine = engine(IdempotencyMetrics.bind(registry, store));

        // executed, then two replays 42 s and 60 s after the first claim
        engine.execute(key("t1", "a"), "{}", ctx -> "ok");
        clock.advance(Duration.ofSeconds(42));
        engine.execute(key("t1", "a"), "{}", ctx -> "again");
        clock.advance(Duration.ofSeconds(18));
        engine.execute(key("t1", "a"), "{}", ctx -> "again");
        // key reused
        assertThatThrownBy(() -> engine.execute(key("t1", "a"), "{\"x\":1}", ctx -> "no"))
                .isInstanceOf(KeyReusedException.class);
        // in-progress conflict: a duplicate arrives while the first still runs
        engine.execute(key("t1", "b"), "{}", ctx -> {
            assertThatThrownBy(() -> engine.execute(key("t1", "b"), "{}", inner -> "dup"))
                    .isInstanceOf(RequestInProgressException.class);
            return "first";
        });
        // transient failure releases the key
        assertThatThrownBy(() -> engine.execute(key("t1", "c"), "{}", ctx -> {
            throw new IllegalStateException("down");
        })).isInstanceOf(IllegalStateException.class);
        // final failure is stored (and replayed once)
        assertThatThrownBy(() -> engine.execute(key("t1", "d"), "{}", ctx -> {
            throw new IllegalArgumentException("card declined");
        })).isInstanceOf(FinalFailureException.class).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.execute(key("t1", "d"), "{}", ctx -> "no"))
                .isInstanceOf(ReplayedFailureException.class);
        // a lapsed lease is taken over by a duplicate; the stale worker loses its lease
        assertThatThrownBy(() -> engine.execute(key("t1", "e"), "{}", ctx -> {
            clock.advance(Duration.ofSeconds(31));
            engine.execute(key("t1", "e"), "{}", inner -> "taker");
            return "stale";
        })).isInstanceOf(LeaseLostException.class);
        // an outcome larger than the store accepts is kept as a final "not stored" marker
        assertThatThrownBy(() -> engine.execute(key("t1", "f"), "{}", ctx -> "x".repeat(200)))
                .isInstanceOf(OutcomeNotStoredException.class);

        assertThat(count("executed")).isEqualTo(3);
        assertThat(count("replayed")).isEqualTo(3);
        assertThat(count("key_reused")).isEqualTo(1);
        assertThat(count("in_progress_conflict")).isEqualTo(1);
        assertThat(count("released_on_transient_failure")).isEqualTo(1);
        assertThat(count("final_failure_stored")).isEqualTo(1);
        assertThat(count("lease_taken_over")).isEqualTo(1);
        assertThat(count("lease_lost")).isEqualTo(1);
        assertThat(count("outcome_not_stored")).isEqualTo(1);

        Timer executed = registry.get(IdempotencyMetrics.EXECUTION).tags("outcome", "executed").timer();
        assertThat(executed.count()).isEqualTo(3);
        Timer replay = registry.get(IdempotencyMetrics.REPLAY).timer();
        assertThat(replay.count()).isEqualTo(3);
        assertThat(replay.totalTime(TimeUnit.NANOSECONDS) % 5_000_000).isZero();
        Timer age = registry.get(IdempotencyMetrics.RECORD_AGE).timer();
        assertThat(age.count()).isEqualTo(3);
        // 42 s and 60 s after the claim of "a", and the final failure of "d" replayed at once
        assertThat(age.totalTime(TimeUnit.SECONDS)).isEqualTo(102);
        assertThat(age.max(TimeUnit.SECONDS)).isEqualTo(60);
    }

    @Test
    void scopeAndKeyAreNeverTagsByDefault() {
        IdempotencyEngine engine = engine(IdempotencyMetrics.bind(registry, store));
        engine.execute(key("tenant-secret", "key-secret"), "{}", ctx -> "ok");
        engine.execute(key("tenant-secret", "key-secret"), "{}", ctx -> "ok");
        for (Meter m : registry.getMeters()) {
            assertThat(m.getId().getTags()).extracting(Tag::getKey)
                    .containsAnyOf("operation").doesNotContain("scope", "key");
            assertThat(m.getId().getTags()).extracting(Tag::getValue)
                    .doesNotContain("tenant-secret", "key-secret");
        }
    }

    @Test
    void operationsPastTheBoundShareOneTagValue() {
        IdempotencyEngine engine = engine(IdempotencyMetrics.builder(registry).storeKind("memory")
                .maxOperations(3).build());
        // Operations built from raw paths, as idem-http's default route resolver makes them.
        for (int order = 0; order < 50; order++) {
            engine.execute(IdempotencyKey.of("t", "POST /orders/" + order, "k"), "{}", ctx -> "ok");
        }
        engine.execute(IdempotencyKey.of("t", "POST /orders/1", "k2"), "{}", ctx -> "ok");
        List<String> operations = registry.get(IdempotencyMetrics.EVENTS).counters().stream()
                .map(c -> c.getId().getTag("operation")).distinct().sorted().toList();
        assertThat(operations).containsExactlyInAnyOrder(IdempotencyMetrics.OTHER_OPERATION, "POST /orders/0",
                "POST /orders/1", "POST /orders/2");
        assertThat(registry.get(IdempotencyMetrics.EVENTS).tags("operation", "other", "outcome", "executed")
                .counter().count()).isEqualTo(47);
        assertThat(registry.get(IdempotencyMetrics.EVENTS).tags("operation", "POST /orders/1", "outcome", "executed")
                .counter().count()).isEqualTo(2);
        assertThatThrownBy(() -> IdempotencyMetrics.builder(registry).maxOperations(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }

    @Test
    void scopeAndKeyTagsAreOptIn() {
        IdempotencyEngine engine = engine(IdempotencyMetrics.builder(registry).storeKind("memory")
                .tagScope(true).tagKey(true).tags(Tags.of("app", "shop")).build());
        engine.execute(key("t1", "k1"), "{}", ctx -> "ok");
        engine.execute(key("t2", "k1"), "{}", ctx -> "ok");
        engine.execute(key("t2", "k1"), "{}", ctx -> "ok");
        assertThat(registry.get(IdempotencyMetrics.EVENTS)
                .tags("scope", "t2", "key", "k1", "outcome", "replayed", "app", "shop").counter().count())
                .isEqualTo(1);
        assertThat(registry.get(IdempotencyMetrics.EVENTS).tags("outcome", "executed").counters())
                .hasSize(2);
    }

    @Test
    void storeKindsAndOutcomeNames() {
        assertThat(IdempotencyMetrics.storeKind(store)).isEqualTo("memory");
        assertThat(IdempotencyMetrics.outcome(IdempotencyEvent.Type.FIRST_EXECUTION)).isEqualTo("executed");
        assertThat(IdempotencyMetrics.outcome(IdempotencyEvent.Type.LEASE_TAKEN_OVER)).isEqualTo("lease_taken_over");
        assertThatThrownBy(() -> IdempotencyMetrics.builder(registry).tags(List.of(Tag.of("outcome", "x"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyMetrics.builder(registry).storeKind(" "))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
