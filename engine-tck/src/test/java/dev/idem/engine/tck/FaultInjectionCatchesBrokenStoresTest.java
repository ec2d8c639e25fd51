package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Deadlines;
import dev.idem.engine.tck.FaultCampaign.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection kit must reject what it exists to catch: each mutant here is the memory
 * store with one deliberate bug, of the store or of the engine reintroduced through the store,
 * and the kit must fail it with a message that names the broken promise.
 */
class FaultInjectionCatchesBrokenStoresTest {

    private static FaultCampaign campaign(UnaryOperator<IdempotencyStore> mutant) {
        return campaign(mutant, UnaryOperator.identity());
    }

    /**
     * A campaign whose store is {@code mutant} of the memory store, and whose engines see each
     * worker's connection through {@code engineSide}, which can bring back an engine's bug.
     */
    private static FaultCampaign campaign(UnaryOperator<IdempotencyStore> mutant,
            UnaryOperator<IdempotencyStore> engineSide) {
        MemoryFixture fixture = MemoryFixture.wrapped(mutant);
        return new FaultCampaign(fixture,
                s -> IdempotencyEngine.builder().store(engineSide.apply(s)).lease(fixture.lease()), 20L,
                "mutant-" + UUID.randomUUID());
    }

    @Test
    void theMemoryStoreAsItIsPasses() {
        assertThat(campaign(UnaryOperator.identity()).run(Clocks.SAME, Script.STEPS)).isGreaterThan(40);
    }

    /** A store that acknowledges step journals it never writes. */
    static final class LosesCheckpoints extends ForwardingIdempotencyStore {
        LosesCheckpoints(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            return delegate().find(key).map(r -> r.fencingToken() == token).orElse(false);
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
    static final class AcknowledgesRefusedCompletions extends ForwardingIdempotencyStore {
        AcknowledgesRefusedCompletions(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            delegate().complete(key, token, outcome, ttl);
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
     * own clock, so a worker taken over between steps runs the next step too.
     */
    static final class GrantsEveryExtension extends ForwardingIdempotencyStore {
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

    /**
     * A store whose first journal write of a key fails and gives the claim back: what an engine
     * that released the key on a failed journal write once did, so a retry claims
     * the key with an empty journal and runs the step whose effect already happened.
     */
    static final class ReleasesOnAFailedCheckpoint extends ForwardingIdempotencyStore {
        private final Set<IdempotencyKey> failed = ConcurrentHashMap.newKeySet();

        ReleasesOnAFailedCheckpoint(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            if (failed.add(key)) {
                delegate().release(key, token);
                throw new StoreUnavailableException("journal write failed (mutant)", null, false);
            }
            return delegate().checkpoint(key, token, journal);
        }
    }

    @Test
    void aClaimGivenBackOnAFailedJournalWriteIsCaughtRepeatingTheStep() {
        assertThatThrownBy(() -> campaign(ReleasesOnAFailedCheckpoint::new).run(Clocks.SAME, Script.STEPS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("effect reserve ran 2 times")
                .hasMessageContaining("fault-free run");
    }

    /**
     * Between the engine and its connection: a journal write that fails for good releases the
     * key, as the engine once did. The step's effect ran; a retry claims the
     * key at once and may run it again, where the engine must keep the claim until its lease lapses.
     */
    static final class EngineReleasingOnAFailedJournalWrite extends ForwardingIdempotencyStore {
        EngineReleasingOnAFailedJournalWrite(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            try {
                return delegate().checkpoint(key, token, journal);
            } catch (StoreUnavailableException e) {
                if (!e.retryable()) {
                    delegate().release(key, token);
                }
                throw e;
            }
        }
    }

    @Test
    void anEngineThatReleasesOnAFailedJournalWriteIsCaughtGivingTheKeyBack() {
        assertThatThrownBy(() -> campaign(UnaryOperator.identity(), EngineReleasingOnAFailedJournalWrite::new)
                .run(Clocks.SAME, Script.STEPS))
                .isInstanceOf(AssertionError.class).hasMessageContaining("gave the key back (a release after the lost"
                        + " CHECKPOINT)")
                .hasMessageContaining("fault PERMANENT");
    }

    /**
     * A store that claims every key for a lease of its own instead of the one the engine asks for:
     * the claim of a worker whose caller gave a deadline (half the lease) then blocks the key for a
     * whole lease after the worker crashed, as if the deadline counted for nothing.
     */
    static final class HoldsEveryClaimForItsOwnLease extends ForwardingIdempotencyStore {
        /** The memory fixture's lease, the one the campaign's engines are built with. */
        private static final Duration OWN_LEASE = Duration.ofSeconds(30);

        HoldsEveryClaimForItsOwnLease(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            return delegate().claim(key, fingerprint, token, OWN_LEASE, ttl);
        }
    }

    @Test
    void aClaimThatIgnoresTheDeadlinesLeaseIsCaughtBlockingACrashedCallersKey() {
        // Without deadlines the lease asked for is the store's own: nothing to see.
        assertThat(campaign(HoldsEveryClaimForItsOwnLease::new).run(Clocks.SAME, Script.PLAIN)).isGreaterThan(10);

        assertThatThrownBy(() -> campaign(HoldsEveryClaimForItsOwnLease::new)
                .run(Clocks.SAME, Deadlines.PER_CALL, Script.PLAIN))
                .isInstanceOf(AssertionError.class).hasMessageContaining("what the callers' deadlines cut it to")
                .hasMessageContaining("CRASH");
    }

    @Test
    void theMemoryStoreAsItIsPassesWithDeadlines() {
        for (Script script : Script.values()) {
            if (script.async()) {
                continue;
            }
            assertThat(campaign(UnaryOperator.identity()).run(Clocks.SAME, Deadlines.PER_CALL, script))
                    .as("%s", script).isGreaterThan(10);
        }
    }

    @Test
    void theMemoryStoresNonBlockingFormAsItIsPasses() {
        assertThat(campaign(NonBlockingMemory::new).run(Clocks.SAME, Script.ASYNC_PLAIN)).isGreaterThan(8);
    }

    /** A non-blocking form that reports a refused completion as stored. */
    static final class AcknowledgesRefusedCompletionsNonBlocking extends NonBlockingMemory {
        AcknowledgesRefusedCompletionsNonBlocking(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        boolean formComplete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            delegate().complete(key, token, outcome, ttl);
            return true;
        }
    }

    @Test
    void aNonBlockingFormThatAcknowledgesRefusedCompletionsIsCaughtAsTwoAnswers() {
        assertThatThrownBy(() -> campaign(AcknowledgesRefusedCompletionsNonBlocking::new)
                .run(Clocks.SAME, Script.ASYNC_PLAIN))
                .isInstanceOf(AssertionError.class).hasMessageContaining("callers got different answers");
    }

    /**
     * A non-blocking form whose claim does not see a completed record (a read from a stale
     * replica): it reports the claim as won, so the work runs again.
     */
    static final class ClaimMissesCompletedRecordsNonBlocking extends NonBlockingMemory {
        ClaimMissesCompletedRecordsNonBlocking(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        ClaimResult formClaim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            ClaimResult r = delegate().claim(key, fingerprint, token, lease, ttl);
            StoredRecord seen = r.record();
            if (r.claimed() || seen.state() != RecordState.COMPLETED) {
                return r;
            }
            Instant now = r.storeTime();
            return ClaimResult.acquired(new StoredRecord(key, RecordState.IN_PROGRESS, fingerprint, token,
                    seen.attempt() + 1, now, now.plus(lease), now.plus(ttl), null, null), now);
        }
    }

    @Test
    void aNonBlockingClaimThatMissesTheCompletedRecordIsCaughtRunningTheWorkAgain() {
        assertThatThrownBy(() -> campaign(ClaimMissesCompletedRecordsNonBlocking::new)
                .run(Clocks.SAME, Script.ASYNC_FINAL_FAILURE))
                .isInstanceOf(AssertionError.class).hasMessageContaining("ASYNC_FINAL_FAILURE");
    }
}
