package dev.idem.store.tck.mutants;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;

/**
 * The whole kit bound to each mutant: one contract class and one properties class per
 * {@link Bug}, run by {@link MutantKitTest} through the JUnit Platform launcher (they are
 * nested, so the build's own test run skips them).
 */
final class MutantKits {
    private MutantKits() {
    }

    /** A mutant on a simulated clock standing on a whole second (the kit moves it off); both instances share it. */
    static final class Fixture implements StoreFixture {
        private final MutableClock clock = new MutableClock();
        private final MutantStore store;

        Fixture(Bug bug) {
            this.store = new MutantStore(bug, clock);
        }

        @Override
        public IdempotencyStore store() {
            return store;
        }

        @Override
        public void advance(Duration d) {
            clock.advance(d);
        }

        @Override
        public boolean clockIsSimulated() {
            return true;
        }

        @Override
        public AnswersHeld holdAnswers() {
            return store.holdAnswers();
        }
    }

    /** The contract for one mutant. */
    abstract static class Contract extends IdempotencyStoreContract {
        abstract Bug bug();

        @Override
        protected StoreFixture createFixture() {
            return new Fixture(bug());
        }
    }

    /** The contract through the non-blocking form, for one mutant. */
    abstract static class NonBlockingContract extends NonBlockingStoreContract {
        abstract Bug bug();

        @Override
        protected StoreFixture createStoreFixture() {
            return new Fixture(bug());
        }
    }

    /** The properties for one mutant. */
    abstract static class Properties extends IdempotencyStoreProperties {
        abstract Bug bug();

        @Override
        protected StoreFixture createFixture() {
            return new Fixture(bug());
        }
    }

    /** The kit's two classes for {@code bug}. */
    static Class<?>[] kit(Bug bug) {
        return switch (bug) {
            case NONE -> new Class<?>[] {NoneC.class, NoneP.class, NoneN.class};
            case NON_ATOMIC_CLAIM -> new Class<?>[] {NonAtomicClaimC.class, NonAtomicClaimP.class};
            case FIND_LAGS_CLAIM -> new Class<?>[] {FindLagsClaimC.class, FindLagsClaimP.class};
            case EXISTING_FROM_SECOND_READ ->
                    new Class<?>[] {ExistingFromSecondReadC.class, ExistingFromSecondReadP.class};
            case NON_ATOMIC_COMPLETE -> new Class<?>[] {NonAtomicCompleteC.class, NonAtomicCompleteP.class};
            case NON_ATOMIC_RELEASE -> new Class<?>[] {NonAtomicReleaseC.class, NonAtomicReleaseP.class};
            case NON_ATOMIC_EXTEND -> new Class<?>[] {NonAtomicExtendC.class, NonAtomicExtendP.class};
            case NON_ATOMIC_CHECKPOINT -> new Class<?>[] {NonAtomicCheckpointC.class, NonAtomicCheckpointP.class};
            case UNFENCED_COMPLETE -> new Class<?>[] {UnfencedCompleteC.class, UnfencedCompleteP.class};
            case UNFENCED_RELEASE -> new Class<?>[] {UnfencedReleaseC.class, UnfencedReleaseP.class};
            case UNFENCED_CHECKPOINT -> new Class<?>[] {UnfencedCheckpointC.class, UnfencedCheckpointP.class};
            case LEASE_OFF_BY_ONE -> new Class<?>[] {LeaseOffByOneC.class, LeaseOffByOneP.class};
            case EXPIRY_OFF_BY_ONE -> new Class<?>[] {ExpiryOffByOneC.class, ExpiryOffByOneP.class};
            case CHECKPOINT_AT_EXPIRY -> new Class<?>[] {CheckpointAtExpiryC.class, CheckpointAtExpiryP.class};
            case WHOLE_SECOND_DEADLINES -> new Class<?>[] {WholeSecondDeadlinesC.class, WholeSecondDeadlinesP.class};
            case RECORD_DIES_UNDER_LEASE -> new Class<?>[] {RecordDiesUnderLeaseC.class, RecordDiesUnderLeaseP.class};
            case EXTEND_KEEPS_EXPIRY -> new Class<?>[] {ExtendKeepsExpiryC.class, ExtendKeepsExpiryP.class};
            case EXTEND_SHORTENS_EXPIRY -> new Class<?>[] {ExtendShortensExpiryC.class, ExtendShortensExpiryP.class};
            case COMPLETE_LOSES_OUTCOME -> new Class<?>[] {CompleteLosesOutcomeC.class, CompleteLosesOutcomeP.class};
            case PURGE_LAPSED_LEASES -> new Class<?>[] {PurgeLapsedLeasesC.class, PurgeLapsedLeasesP.class};
            case PURGE_RELEASED -> new Class<?>[] {PurgeReleasedC.class, PurgeReleasedP.class};
            case WRONG_KEY_OUTCOME -> new Class<?>[] {WrongKeyOutcomeC.class, WrongKeyOutcomeP.class};
            case SCOPE_IGNORED -> new Class<?>[] {ScopeIgnoredC.class, ScopeIgnoredP.class};
            case SCOPE_FOLDED -> new Class<?>[] {ScopeFoldedC.class};
            case OPERATION_IGNORED -> new Class<?>[] {OperationIgnoredC.class, OperationIgnoredP.class};
            case NON_BLOCKING_UNFENCED_COMPLETE -> new Class<?>[] {NonBlockingUnfencedCompleteN.class};
            case NON_BLOCKING_OWN_RECORDS -> new Class<?>[] {NonBlockingOwnRecordsN.class};
            case NON_BLOCKING_ON_THE_CALLERS_THREAD -> new Class<?>[] {OnTheCallersThreadN.class};
            case BACKED_BY_ANY_STORE -> new Class<?>[] {BackedByAnyStoreC.class};
            case OVERSIZED_OUTCOME_CUT -> new Class<?>[] {OversizedOutcomeCutC.class};
            case CUT_ABOVE_FOUR_MIB -> new Class<?>[] {CutAboveFourMibC.class};
            case RECLAIM_KEEPS_EXPIRY -> new Class<?>[] {ReclaimKeepsExpiryC.class, ReclaimKeepsExpiryP.class};
            case TAKEOVER_KEEPS_EXPIRY -> new Class<?>[] {TakeoverKeepsExpiryC.class, TakeoverKeepsExpiryP.class};
        };
    }

    // One pair per bug: JUnit and jqwik instantiate test classes themselves, so the bug is in the type.
    static final class NoneC extends Contract { Bug bug() { return Bug.NONE; } }
    static final class NoneP extends Properties { Bug bug() { return Bug.NONE; } }
    static final class NoneN extends NonBlockingContract { Bug bug() { return Bug.NONE; } }
    static final class NonBlockingUnfencedCompleteN extends NonBlockingContract {
        Bug bug() { return Bug.NON_BLOCKING_UNFENCED_COMPLETE; }
    }
    static final class NonBlockingOwnRecordsN extends NonBlockingContract {
        Bug bug() { return Bug.NON_BLOCKING_OWN_RECORDS; }
    }
    static final class OnTheCallersThreadN extends NonBlockingContract {
        Bug bug() { return Bug.NON_BLOCKING_ON_THE_CALLERS_THREAD; }
    }
    static final class BackedByAnyStoreC extends Contract { Bug bug() { return Bug.BACKED_BY_ANY_STORE; } }
    static final class OversizedOutcomeCutC extends Contract { Bug bug() { return Bug.OVERSIZED_OUTCOME_CUT; } }
    static final class CutAboveFourMibC extends Contract { Bug bug() { return Bug.CUT_ABOVE_FOUR_MIB; } }
    static final class ReclaimKeepsExpiryC extends Contract { Bug bug() { return Bug.RECLAIM_KEEPS_EXPIRY; } }
    static final class ReclaimKeepsExpiryP extends Properties { Bug bug() { return Bug.RECLAIM_KEEPS_EXPIRY; } }
    static final class TakeoverKeepsExpiryC extends Contract { Bug bug() { return Bug.TAKEOVER_KEEPS_EXPIRY; } }
    static final class TakeoverKeepsExpiryP extends Properties { Bug bug() { return Bug.TAKEOVER_KEEPS_EXPIRY; } }
    static final class NonAtomicClaimC extends Contract { Bug bug() { return Bug.NON_ATOMIC_CLAIM; } }
    static final class NonAtomicClaimP extends Properties { Bug bug() { return Bug.NON_ATOMIC_CLAIM; } }
    static final class FindLagsClaimC extends Contract { Bug bug() { return Bug.FIND_LAGS_CLAIM; } }
    static final class FindLagsClaimP extends Properties { Bug bug() { return Bug.FIND_LAGS_CLAIM; } }
    static final class ExistingFromSecondReadC extends Contract { Bug bug() { return Bug.EXISTING_FROM_SECOND_READ; } }
    static final class ExistingFromSecondReadP extends Properties {
        Bug bug() { return Bug.EXISTING_FROM_SECOND_READ; }
    }
    static final class NonAtomicCompleteC extends Contract { Bug bug() { return Bug.NON_ATOMIC_COMPLETE; } }
    static final class NonAtomicCompleteP extends Properties { Bug bug() { return Bug.NON_ATOMIC_COMPLETE; } }
    static final class NonAtomicReleaseC extends Contract { Bug bug() { return Bug.NON_ATOMIC_RELEASE; } }
    static final class NonAtomicReleaseP extends Properties { Bug bug() { return Bug.NON_ATOMIC_RELEASE; } }
    static final class NonAtomicExtendC extends Contract { Bug bug() { return Bug.NON_ATOMIC_EXTEND; } }
    static final class NonAtomicExtendP extends Properties { Bug bug() { return Bug.NON_ATOMIC_EXTEND; } }
    static final class NonAtomicCheckpointC extends Contract { Bug bug() { return Bug.NON_ATOMIC_CHECKPOINT; } }
    static final class NonAtomicCheckpointP extends Properties { Bug bug() { return Bug.NON_ATOMIC_CHECKPOINT; } }
    static final class UnfencedCompleteC extends Contract { Bug bug() { return Bug.UNFENCED_COMPLETE; } }
    static final class UnfencedCompleteP extends Properties { Bug bug() { return Bug.UNFENCED_COMPLETE; } }
    static final class UnfencedReleaseC extends Contract { Bug bug() { return Bug.UNFENCED_RELEASE; } }
    static final class UnfencedReleaseP extends Properties { Bug bug() { return Bug.UNFENCED_RELEASE; } }
    static final class UnfencedCheckpointC extends Contract { Bug bug() { return Bug.UNFENCED_CHECKPOINT; } }
    static final class UnfencedCheckpointP extends Properties { Bug bug() { return Bug.UNFENCED_CHECKPOINT; } }
    static final class LeaseOffByOneC extends Contract { Bug bug() { return Bug.LEASE_OFF_BY_ONE; } }
    static final class LeaseOffByOneP extends Properties { Bug bug() { return Bug.LEASE_OFF_BY_ONE; } }
    static final class ExpiryOffByOneC extends Contract { Bug bug() { return Bug.EXPIRY_OFF_BY_ONE; } }
    static final class ExpiryOffByOneP extends Properties { Bug bug() { return Bug.EXPIRY_OFF_BY_ONE; } }
    static final class CheckpointAtExpiryC extends Contract { Bug bug() { return Bug.CHECKPOINT_AT_EXPIRY; } }
    static final class CheckpointAtExpiryP extends Properties { Bug bug() { return Bug.CHECKPOINT_AT_EXPIRY; } }
    static final class WholeSecondDeadlinesC extends Contract { Bug bug() { return Bug.WHOLE_SECOND_DEADLINES; } }
    static final class WholeSecondDeadlinesP extends Properties { Bug bug() { return Bug.WHOLE_SECOND_DEADLINES; } }
    static final class RecordDiesUnderLeaseC extends Contract { Bug bug() { return Bug.RECORD_DIES_UNDER_LEASE; } }
    static final class RecordDiesUnderLeaseP extends Properties { Bug bug() { return Bug.RECORD_DIES_UNDER_LEASE; } }
    static final class ExtendKeepsExpiryC extends Contract { Bug bug() { return Bug.EXTEND_KEEPS_EXPIRY; } }
    static final class ExtendKeepsExpiryP extends Properties { Bug bug() { return Bug.EXTEND_KEEPS_EXPIRY; } }
    static final class ExtendShortensExpiryC extends Contract { Bug bug() { return Bug.EXTEND_SHORTENS_EXPIRY; } }
    static final class ExtendShortensExpiryP extends Properties { Bug bug() { return Bug.EXTEND_SHORTENS_EXPIRY; } }
    static final class CompleteLosesOutcomeC extends Contract { Bug bug() { return Bug.COMPLETE_LOSES_OUTCOME; } }
    static final class CompleteLosesOutcomeP extends Properties { Bug bug() { return Bug.COMPLETE_LOSES_OUTCOME; } }
    static final class PurgeLapsedLeasesC extends Contract { Bug bug() { return Bug.PURGE_LAPSED_LEASES; } }
    static final class PurgeLapsedLeasesP extends Properties { Bug bug() { return Bug.PURGE_LAPSED_LEASES; } }
    static final class PurgeReleasedC extends Contract { Bug bug() { return Bug.PURGE_RELEASED; } }
    static final class PurgeReleasedP extends Properties { Bug bug() { return Bug.PURGE_RELEASED; } }
    static final class WrongKeyOutcomeC extends Contract { Bug bug() { return Bug.WRONG_KEY_OUTCOME; } }
    static final class WrongKeyOutcomeP extends Properties { Bug bug() { return Bug.WRONG_KEY_OUTCOME; } }
    static final class ScopeIgnoredC extends Contract { Bug bug() { return Bug.SCOPE_IGNORED; } }
    static final class ScopeIgnoredP extends Properties { Bug bug() { return Bug.SCOPE_IGNORED; } }
    static final class ScopeFoldedC extends Contract { Bug bug() { return Bug.SCOPE_FOLDED; } }
    static final class OperationIgnoredC extends Contract { Bug bug() { return Bug.OPERATION_IGNORED; } }
    static final class OperationIgnoredP extends Properties { Bug bug() { return Bug.OPERATION_IGNORED; } }
}
