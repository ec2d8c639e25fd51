package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Ticker;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Deadlines;
import dev.idem.engine.tck.FaultCampaign.Script;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The fault campaigns must reject engines broken where the campaigns newly look: an engine that
 * starts the work although its caller's deadline passed while the claim was in flight (blocking
 * and asynchronous), and an engine whose near cache takes a success before the store
 * acknowledged it. Each is the real engine, configured or with something in front of its store.
 */
class CampaignCatchesBrokenEnginesTest {

    /**
     * What an engine that reads its caller's deadline only before it sends the claim sees: the
     * deadline's time stands still from the claim's send until the engine's next store call, so
     * the time the claim spent in flight does not count when the engine decides whether to run the
     * work. In front of each worker's connection, and the deadlines' ticker.
     */
    static final class DeadlineReadBeforeTheClaim implements UnaryOperator<Ticker> {
        private volatile Ticker real = () -> 0;
        private volatile Long frozenAt;

        /** The deadlines' ticker: the run's, standing still while a claim is in flight. */
        @Override
        public Ticker apply(Ticker runTicker) {
            real = runTicker;
            return () -> {
                Long frozen = frozenAt;
                return frozen != null ? frozen : real.read();
            };
        }

        /** In front of a worker's connection: a claim freezes the deadlines' time, any other call thaws it. */
        IdempotencyStore engineSide(IdempotencyStore connection) {
            return new ForwardingIdempotencyStore(connection) {
                @Override
                protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                    mark(operation);
                    return call.get();
                }

                @Override
                protected <T> CompletionStage<T> aroundAsync(Operation operation, IdempotencyKey key,
                        Supplier<? extends CompletionStage<T>> call) {
                    mark(operation);
                    return call.get();
                }
            };
        }

        private void mark(ForwardingIdempotencyStore.Operation operation) {
            frozenAt = operation == ForwardingIdempotencyStore.Operation.CLAIM ? real.read() : null;
        }
    }

    private static FaultCampaign campaign(UnaryOperator<IdempotencyStore> store,
            UnaryOperator<IdempotencyStore> engineSide) {
        MemoryFixture fixture = MemoryFixture.wrapped(store);
        return new FaultCampaign(fixture,
                s -> IdempotencyEngine.builder().store(engineSide.apply(s)).lease(fixture.lease()), 20L,
                "broken-engine-" + UUID.randomUUID());
    }

    @Test
    void aBlockingCallThatStartsTheWorkAfterItsDeadlineIsCaught() {
        DeadlineReadBeforeTheClaim stale = new DeadlineReadBeforeTheClaim();
        assertThatThrownBy(() -> campaign(UnaryOperator.identity(), stale::engineSide).deadlinesOn(stale)
                .run(Clocks.SAME, Deadlines.PER_CALL, Script.PLAIN))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("the work started").hasMessageContaining("after its caller's deadline")
                .hasMessageContaining("LAPSE_BEFORE at call 1 (CLAIM)");
    }

    @Test
    void anAsyncCallThatStartsTheWorkAfterItsDeadlineIsCaughtOnBothForms() {
        for (UnaryOperator<IdempotencyStore> store : java.util.List.<UnaryOperator<IdempotencyStore>>of(
                UnaryOperator.identity(), NonBlockingMemory::new)) {
            DeadlineReadBeforeTheClaim stale = new DeadlineReadBeforeTheClaim();
            assertThatThrownBy(() -> campaign(store, stale::engineSide).deadlinesOn(stale)
                    .run(Clocks.SAME, Deadlines.PER_CALL, Script.ASYNC_PLAIN))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("the work started").hasMessageContaining("after its caller's deadline")
                    .hasMessageContaining("(CLAIM)");
        }
    }

    @Test
    void theRealEngineWithDeadlinesPassesTheAsyncCampaignsOnBothForms() {
        for (UnaryOperator<IdempotencyStore> store : java.util.List.<UnaryOperator<IdempotencyStore>>of(
                UnaryOperator.identity(), NonBlockingMemory::new)) {
            for (Script script : new Script[] {Script.ASYNC_PLAIN, Script.ASYNC_FINAL_FAILURE}) {
                assertThat(campaign(store, UnaryOperator.identity()).run(Clocks.SAME, Deadlines.PER_CALL, script))
                        .as("%s", script).isGreaterThan(10);
            }
        }
    }

    @Test
    void aNearCacheThatTakesASuccessBeforeTheStoreAcknowledgedItIsCaught() {
        assertThatThrownBy(() -> campaign(UnaryOperator.identity(), s -> new BrokenNearCaches.EngineSideCache(s,
                Ticker.system(), java.time.Duration.ofHours(1), BrokenNearCaches.Bug.TAKEN_BEFORE_THE_ACKNOWLEDGEMENT))
                .run(Clocks.SAME, Script.PLAIN))
                .isInstanceOf(AssertionError.class).hasMessageContaining("callers got different answers")
                .hasMessageContaining("fault TAKEOVER_");
        assertThat(campaign(UnaryOperator.identity(), s -> new BrokenNearCaches.EngineSideCache(s, Ticker.system(),
                java.time.Duration.ofHours(1), BrokenNearCaches.Bug.NONE)).run(Clocks.SAME, Script.PLAIN))
                .as("the same cache without its bug").isGreaterThan(10);
    }
}
