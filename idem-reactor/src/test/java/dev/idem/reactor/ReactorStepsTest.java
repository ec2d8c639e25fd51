package dev.idem.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InterruptedStep;
import dev.idem.engine.Reconciliation;
import dev.idem.engine.StepOutcomeUnknownException;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Steps of reactive work: an at-most-once step's {@code Mono} is subscribed at most once per key,
 * an interrupted one is settled by the reconciler's {@code Mono} (the subscriber's context in
 * both), and the steps run off the subscriber's thread. Every wait is bounded.
 */
class ReactorStepsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).clock(clock)
            .ticker(() -> clock.millis() * 1_000_000L).build();
    private final ReactorIdempotency idem = ReactorIdempotency.of(engine);
    /** The bank's transfers, by reference. */
    private final List<String> transfers = new CopyOnWriteArrayList<>();
    private final List<InterruptedStep> reconciled = new CopyOnWriteArrayList<>();
    private final List<String> threads = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        engine.close();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "wire-order", k);
    }

    /** Moves the money, then (on the first attempt) times out: the transfer happened, its answer was lost. */
    private Mono<String> wire(String reference, int attempt) {
        return Mono.deferContextual(view -> {
            threads.add(Thread.currentThread().getName());
            transfers.add(reference);
            if (attempt == 1) {
                return Mono.error(new IllegalStateException("bank timed out"));
            }
            return Mono.just("tr-" + attempt + "-" + view.getOrDefault("tenant", "none"));
        });
    }

    private Mono<Reconciliation<String>> lookUp(InterruptedStep step) {
        reconciled.add(step);
        return Mono.deferContextual(view -> Mono.justOrEmpty(transfers.contains(step.downstreamKey())
                ? Reconciliation.happened("found-" + view.getOrDefault("tenant", "none"))
                : Reconciliation.<String>didNotHappen()));
    }

    private Mono<String> call(IdempotencyKey k) {
        return idem.call(k, "{}", String.class, ctx -> ReactorSteps.step(ctx, "reserve", String.class,
                        Mono.just("res-" + ctx.attempt()))
                .flatMap(reserved -> ReactorSteps.atMostOnceStep(ctx, "wire", String.class,
                        wire(ctx.downstreamKey("wire"), ctx.attempt()), this::lookUp)
                        .map(wired -> reserved + "," + wired)))
                .contextWrite(c -> c.put("tenant", "acme"));
    }

    @Test
    void anInterruptedAtMostOnceStepIsReconciledNotResubscribed() {
        IdempotencyKey k = key("k1");
        assertThatThrownBy(() -> call(k).block(WAIT)).hasMessage("bank timed out");
        assertThat(store.find(k).orElseThrow().state()).as("handed back: its journal holds the marker")
                .isEqualTo(RecordState.IN_PROGRESS);
        clock.advance(Duration.ofMillis(2));

        assertThat(call(k).block(WAIT)).isEqualTo("res-1,found-acme");
        assertThat(call(k).block(WAIT)).as("replayed").isEqualTo("res-1,found-acme");
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("wire");
            assertThat(s.startedBy()).isEqualTo(1);
        });
        assertThat(threads).allMatch(t -> t.startsWith("boundedElastic"), "steps run on boundedElastic");
    }

    @Test
    void aStepThatDidNotHappenRunsOnceWithTheSubscribersContext() {
        IdempotencyKey k = key("k2");
        Mono<String> failsBeforeTheEffect = idem.call(k, "{}", String.class, ctx -> ReactorSteps.atMostOnceStep(ctx,
                "wire", String.class, ctx.attempt() == 1 ? Mono.error(new IllegalStateException("bank down"))
                        : wire(ctx.downstreamKey("wire"), ctx.attempt()), this::lookUp))
                .contextWrite(c -> c.put("tenant", "acme"));

        assertThatThrownBy(() -> failsBeforeTheEffect.block(WAIT)).hasMessage("bank down");
        clock.advance(Duration.ofMillis(2));

        assertThat(failsBeforeTheEffect.block(WAIT)).isEqualTo("tr-2-acme");
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).hasSize(1);
    }

    @Test
    void anEmptyReconcilerAnswerIsAnUnknownOutcomeAndFailsTheKeyFinally() {
        IdempotencyKey k = key("k3");
        Mono<String> work = idem.call(k, "{}", String.class, ctx -> ReactorSteps.atMostOnceStep(ctx, "wire",
                String.class, wire(ctx.downstreamKey("wire"), ctx.attempt()), s -> Mono.empty()));

        assertThatThrownBy(() -> work.block(WAIT)).hasMessage("bank timed out");
        clock.advance(Duration.ofMillis(2));

        assertThatThrownBy(() -> work.block(WAIT)).isInstanceOf(StepOutcomeUnknownException.class)
                .hasMessageContaining("completed empty");
        assertThat(transfers).hasSize(1);
    }
}
