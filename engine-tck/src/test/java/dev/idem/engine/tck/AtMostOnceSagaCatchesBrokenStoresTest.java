package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.tck.AtMostOnceSaga.Point;
import dev.idem.engine.tck.AtMostOnceSaga.Stall;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The at-most-once saga of {@link StepSagaContract} must reject what it exists to catch: each
 * mutant is the memory store with one deliberate bug, and one of the saga's cases must fail it
 * naming the broken promise. The memory store as it is passes every case ({@link MemoryStepSagaTest}).
 */
class AtMostOnceSagaCatchesBrokenStoresTest {

    /** The contract over the memory store behind {@code mutant}, for one case at a time. */
    private static final class Mutant extends StepSagaContract {
        private final UnaryOperator<IdempotencyStore> mutant;

        Mutant(UnaryOperator<IdempotencyStore> mutant) throws Exception {
            this.mutant = mutant;
            setUpSaga();
        }

        @Override
        protected StoreFixture createFixture() {
            return MemoryFixture.wrapped(mutant);
        }
    }

    /**
     * A store that acknowledges journal writes it never makes: the taker-over finds no start marker
     * and runs the step blindly.
     */
    @Test
    void aStoreThatLosesTheStartMarkerIsCaughtRunningTheStepTwice() throws Exception {
        Mutant kit = new Mutant(FaultInjectionCatchesBrokenStoresTest.LosesCheckpoints::new);
        assertThatThrownBy(() -> kit.anAtMostOnceStepHappensOnceWhereverItsWorkerDiesAndIsReconciledOnlyFromItsMarker(
                Point.BETWEEN_EFFECT_AND_JOURNAL, 1))
                .isInstanceOf(AssertionError.class).hasMessageContaining("transfers of reserve");
    }

    /** A store whose checkpoint writes for any token while the record is in progress: unfenced. */
    static final class UnfencedCheckpoints extends ForwardingIdempotencyStore {
        UnfencedCheckpoints(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            long current = delegate().find(key).map(r -> r.fencingToken()).orElse(token);
            return delegate().checkpoint(key, current, journal);
        }
    }

    @Test
    void anUnfencedCheckpointIsCaughtLettingAStaleWorkerStartTheStep() throws Exception {
        Mutant kit = new Mutant(UnfencedCheckpoints::new);
        assertThatThrownBy(() -> kit.aStaleWorkerCanNeitherStartNorFinishAnAtMostOnceStep(Stall.BEFORE_MARKER, 1))
                .isInstanceOf(AssertionError.class);
        Mutant again = new Mutant(UnfencedCheckpoints::new);
        assertThatThrownBy(() -> again.aStaleWorkerCanNeitherStartNorFinishAnAtMostOnceStep(
                Stall.BETWEEN_EFFECT_AND_JOURNAL, 0)).isInstanceOf(AssertionError.class);
    }

    /**
     * A store that keeps the journal it was sent one checkpoint late (a lagging replica): a worker
     * that dies after a step's result was journaled leaves the step's start marker for the taker-over,
     * which must not be reconciled, since the result was on record.
     */
    static final class OneCheckpointLate extends ForwardingIdempotencyStore {
        private final Map<IdempotencyKey, byte[]> previous = new ConcurrentHashMap<>();

        OneCheckpointLate(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            byte[] late = previous.put(key, journal);
            return delegate().checkpoint(key, token, late != null ? late : journal);
        }
    }

    @Test
    void aJournalThatLagsIsCaughtCallingTheReconcilerForAFinishedStep() throws Exception {
        Mutant kit = new Mutant(OneCheckpointLate::new);
        assertThatThrownBy(() -> kit.anAtMostOnceStepHappensOnceWhereverItsWorkerDiesAndIsReconciledOnlyFromItsMarker(
                Point.AFTER_JOURNAL, 1))
                .isInstanceOf(AssertionError.class).hasMessageContaining("reconciler calls");
    }

    /**
     * A store that takes a lease cut short (the engine's hand-back after a failed attempt) for a
     * release: the record goes, with its journal, so the retry finds no start marker and runs the
     * interrupted step blindly.
     */
    static final class HandBackDeletes extends ForwardingIdempotencyStore {
        HandBackDeletes(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
            Optional<Instant> deadline = delegate().extendLease(key, token, lease);
            if (deadline.isPresent() && lease.compareTo(Duration.ofSeconds(1)) < 0) {
                delegate().release(key, token);
            }
            return deadline;
        }
    }

    @Test
    void aStoreThatDeletesAHandedBackKeyIsCaughtByTheTransientFailureCase() throws Exception {
        Mutant kit = new Mutant(HandBackDeletes::new);
        assertThatThrownBy(() -> kit.aTransientFailureInsideAnAtMostOnceStepIsReconciledByTheRetry(
                Point.BETWEEN_EFFECT_AND_JOURNAL, 1))
                .isInstanceOf(AssertionError.class).hasMessageContaining("handed back, not released");
    }

    /**
     * A store that, for a key whose record holds a step journal, acknowledges a completion but
     * releases the key instead (as if a journaled key could only end retryable): the unknown
     * outcome's final failure is answered once, then the next caller runs the saga again.
     */
    static final class ReleasesJournaledCompletions extends ForwardingIdempotencyStore {
        ReleasesJournaledCompletions(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            boolean journaled = delegate().find(key).map(r -> r.journal() != null).orElse(false);
            return journaled ? delegate().release(key, token) : delegate().complete(key, token, outcome, ttl);
        }
    }

    @Test
    void aStoreThatDoesNotKeepTheUnknownOutcomesFailureIsCaught() throws Exception {
        Mutant kit = new Mutant(ReleasesJournaledCompletions::new);
        assertThatThrownBy(kit::anAtMostOnceStepWhoseOutcomeCannotBeToldFailsTheKeyFinallyForEveryCaller)
                .isInstanceOf(AssertionError.class).hasMessageContaining("every caller's answer");
    }
}
