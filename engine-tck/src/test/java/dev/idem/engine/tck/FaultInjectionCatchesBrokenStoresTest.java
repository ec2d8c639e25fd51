package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection kit must reject what it exists to catch: each mutant here is the memory
 * store with one deliberate bug, of the store or of the engine reintroduced through the store,
 * and the kit must fail it with a message that names the broken promise.
 */
class FaultInjectionCatchesBrokenStoresTest {

    private static FaultCampaign campaign(UnaryOperator<IdempotencyStore> mutant) {
        MemoryFixture fixture = MemoryFixture.wrapped(mutant);
        return new FaultCampaign(fixture, s -> IdempotencyEngine.builder().store(s).lease(fixture.lease()), 20L,
                "mutant-" + UUID.randomUUID());
    }

    @Test
    void theMemoryStoreAsItIsPasses() {
        assertThat(campaign(UnaryOperator.identity()).run(Clocks.SAME, Script.STEPS)).isGreaterThan(40);
    }

    /** A store that acknowledges step journals it never writes. */
    static final class LosesCheckpoints extends ForwardingStore {
        LosesCheckpoints(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            return delegate.find(key).map(r -> r.fencingToken() == token).orElse(false);
        }
    }

    @Test
    void aStoreThatLosesCheckpointsIsCaughtRepeatingAFinishedStep() {
        assertThatThrownBy(() -> campaign(LosesCheckpoints::new).run(Clocks.SAME, Script.STEPS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("effect reserve ran 2 times");
    }

    /**
     * A store that reports a refused completion as stored: what an engine that ignored a lost
     * lease would do, so a stale worker answers its own value while the taker-over's is stored.
     */
    static final class AcknowledgesRefusedCompletions extends ForwardingStore {
        AcknowledgesRefusedCompletions(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            delegate.complete(key, token, outcome, ttl);
            return true;
        }
    }

    @Test
    void aStaleWorkersRefusedCompletionReportedAsStoredIsCaughtAsTwoAnswers() {
        assertThatThrownBy(() -> campaign(AcknowledgesRefusedCompletions::new).run(Clocks.SAME, Script.PLAIN))
                .isInstanceOf(AssertionError.class).hasMessageContaining("callers got different answers");
    }

    /**
     * A store that grants every lease extension without checking the token: the engine's lease
     * check between steps goes blind, as it did when it compared the store's deadline with its
     * own clock (issue 20, point 3), so a worker taken over between steps runs the next step too.
     */
    static final class GrantsEveryExtension extends ForwardingStore {
        private final java.time.Clock clock = java.time.Clock.systemUTC();

        GrantsEveryExtension(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
            return Optional.of(clock.instant().plus(lease));
        }
    }

    @Test
    void aBlindLeaseCheckBetweenStepsIsCaughtRunningAStepTheTakerOverRan() {
        assertThatThrownBy(() -> campaign(GrantsEveryExtension::new).run(Clocks.SAME, Script.STEPS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("ran 2 times")
                .hasMessageContaining("TAKEOVER_AFTER");
    }
}
