package dev.idem.engine;

import static dev.idem.engine.StoreFreeCall.KEY;
import static dev.idem.engine.StoreFreeCall.NOW;
import static dev.idem.engine.StoreFreeCall.completed;
import static dev.idem.engine.StoreFreeCall.inProgress;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.DeadlineExceededException;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.StepJournal;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a key ends, on values alone: what the work returned or threw in, the first {@link Ending}
 * step out ({@link Execution#finish}), and for each answer the store may give a write, the step
 * after it. No store and no thread: the writes are what a driver would make, the answers are made
 * up, and nothing is noted (no event, no near-cache entry) until a step is applied.
 */
class EndingTest {
    private static final StoreUnavailableException DOWN = new StoreUnavailableException("down", null, true);
    private static final StoreUnavailableException REFUSED = new StoreUnavailableException("refused", null, false);

    private final StoreFreeCall setup = new StoreFreeCall();

    private Execution<Object> call;
    private StepContext ctx;

    private void claimed(byte[] journal) {
        call = setup.call();
        byte[] fp = call.fingerprint();
        ctx = call.begin(ClaimResult.acquired(inProgress(fp, Duration.ofSeconds(30), journal), NOW), 0, null, journal);
        ctx.close();
    }

    private Ending<Object> finish(Object value, Throwable failure) {
        if (call == null) {
            claimed(null);
        }
        return call.finish(ctx, value, failure, null);
    }

    /** Applies each step a driver would reach, as the drivers do. */
    @SafeVarargs
    private void reached(Ending<Object>... steps) {
        for (Ending<Object> step : steps) {
            call.apply(step);
        }
    }

    @Test
    void aSuccessIsStoredAndItsFirstCallerGetsItOnceTheStoreSaysSo() {
        setup.nearCache = new NearCache(10, setup.ticks::get);
        Ending<Object> first = finish(Map.of("id", "ch_1"), null);

        Ending.Complete<Object> complete = (Ending.Complete<Object>) first;
        assertThat(complete.kind()).isEqualTo(Ending.Write.Kind.COMPLETE);
        assertThat(complete.token()).isEqualTo(7);
        assertThat(setup.codec.kind(complete.outcome())).isEqualTo(OutcomeCodec.Kind.SUCCESS);
        Ending.Answer<Object> stored = (Ending.Answer<Object>) complete.next(true, null, 42);
        assertThat(stored.result().value()).isEqualTo(Map.of("id", "ch_1"));
        assertThat(stored.result().stored()).isTrue();
        assertThat(stored.result().replayed()).isFalse();
        assertThat(stored.thrown()).isNull();
        assertThat(stored.event()).isEqualTo(Type.FIRST_EXECUTION);
        assertThat(stored.cachedOutcome()).isEqualTo(complete.outcome());
        assertThat(stored.cachedSince()).as("counted from before the write was sent").isEqualTo(42);
        assertThat(setup.events).as("deciding notes nothing").isEmpty();
        assertThat(setup.nearCache.get(KEY)).isNull();

        reached(complete, stored);

        assertThat(setup.events).containsExactly(Type.FIRST_EXECUTION);
        assertThat(setup.nearCache.get(KEY).outcome()).isEqualTo(complete.outcome());
    }

    @Test
    void aCompletionRefusedByTheTokenIsALostLease() {
        Ending.Write<Object> complete = (Ending.Write<Object>) finish("ok", null);

        Ending.Answer<Object> lost = (Ending.Answer<Object>) complete.next(false, null, 0);
        reached(complete, lost);

        assertThat(lost.thrown()).isInstanceOf(LeaseLostException.class);
        assertThat(((LeaseLostException) lost.thrown()).fencingToken()).isEqualTo(7);
        assertThat(lost.cachedOutcome()).isNull();
        assertThat(setup.events).containsExactly(Type.LEASE_LOST);
    }

    @Test
    void aStoreThatStaysDownKeepsTheClaimAndReturnsTheResultUnstored() {
        Ending.Write<Object> complete = (Ending.Write<Object>) finish("ok", null);

        Ending.Answer<Object> kept = (Ending.Answer<Object>) complete.next(false, DOWN, 0);

        assertThat(kept.result().value()).isEqualTo("ok");
        assertThat(kept.result().stored()).isFalse();
        assertThat(kept.event()).isEqualTo(Type.OUTCOME_NOT_STORED);
        assertThat(kept.warning()).contains(KEY.digest()).contains("down");
    }

    @Test
    void anOutcomeRefusedForGoodIsFollowedByTheMarker() {
        Ending.Write<Object> complete = (Ending.Write<Object>) finish("ok", null);

        Ending.StoreMarker<Object> marker = (Ending.StoreMarker<Object>) complete.next(false, REFUSED, 0);
        Ending.Answer<Object> stored = (Ending.Answer<Object>) marker.next(true, null, 9);
        Ending.Answer<Object> lost = (Ending.Answer<Object>) marker.next(false, null, 9);
        reached(complete, marker, lost);

        assertThat(marker.kind()).isEqualTo(Ending.Write.Kind.COMPLETE);
        assertThat(setup.codec.decodeNotStored(marker.outcome())).startsWith("the store refused it: refused");
        assertThat(stored.thrown()).isInstanceOf(OutcomeNotStoredException.class);
        assertThat(((OutcomeNotStoredException) stored.thrown()).replayed()).isFalse();
        assertThat(stored.cachedOutcome()).isEqualTo(marker.outcome());
        assertThat(lost.thrown()).isInstanceOf(LeaseLostException.class);
        assertThat(lost.thrown().getSuppressed()).containsExactly(marker.answer());
        assertThat(setup.events).containsExactly(Type.OUTCOME_NOT_STORED, Type.LEASE_LOST);
    }

    @Test
    void anOutcomeOverTheLimitIsTheMarkerAndOneThatFitsNowhereIsNotWritten() {
        setup.maxOutcomeBytes = 150;
        Ending<Object> overLimit = finish("x".repeat(300), null);
        setup.maxOutcomeBytes = 1;
        call = null;
        Ending<Object> fitsNowhere = finish("x".repeat(300), null);

        assertThat(overLimit).isInstanceOf(Ending.StoreMarker.class);
        assertThat(((Ending.StoreMarker<Object>) overLimit).answer().reason()).contains("over the limit of 150");
        Ending.Answer<Object> nothingWritten = (Ending.Answer<Object>) fitsNowhere;
        assertThat(nothingWritten.thrown()).isInstanceOf(OutcomeNotStoredException.class);
        assertThat(nothingWritten.event()).isEqualTo(Type.OUTCOME_NOT_STORED);
        assertThat(nothingWritten.warning()).contains("neither its outcome nor a marker fits");
    }

    @Test
    void workThatSaysItsOutcomeCannotBeStoredEndsWithTheMarker() {
        Ending<Object> ending = finish(null, new OutcomeNotStoredException(KEY, "the flux is too long", false, null));
        Ending<Object> anotherKeys = finish(null, new OutcomeNotStoredException(
                IdempotencyKey.of("tenant-1", "nested", "k"), "nested", false, null));

        assertThat(((Ending.StoreMarker<Object>) ending).answer().reason()).isEqualTo("the flux is too long");
        assertThat(anotherKeys).as("a nested call's marker is a failure of this work")
                .isInstanceOf(Ending.GiveBack.class);
    }

    @Test
    void aTransientFailureReleasesTheKeyOrHandsItBackIfItsJournalMayHoldSteps() {
        IllegalStateException failure = new IllegalStateException("timeout");
        Ending.GiveBack<Object> release = (Ending.GiveBack<Object>) finish(null, failure);
        call = null;
        claimed(StepJournal.decode(null).append("charge", "1".getBytes()).bytes());
        Ending.GiveBack<Object> handBack = (Ending.GiveBack<Object>) finish(null, failure);

        assertThat(release.kind()).isEqualTo(Ending.Write.Kind.RELEASE);
        assertThat(handBack.kind()).isEqualTo(Ending.Write.Kind.HAND_BACK);
        Ending.Answer<Object> given = (Ending.Answer<Object>) release.next(true, null, 0);
        assertThat(given.thrown()).isSameAs(failure);
        assertThat(given.event()).isEqualTo(Type.RELEASED_ON_TRANSIENT_FAILURE);
    }

    @Test
    void aGiveBackTheStoreRefusesOrFailsIsAddedToTheFailure() {
        IllegalStateException refused = new IllegalStateException("timeout");
        IllegalStateException failed = new IllegalStateException("timeout");
        Ending.Write<Object> first = (Ending.Write<Object>) finish(null, refused);
        Ending.Write<Object> second = (Ending.Write<Object>) finish(null, failed);

        Ending.Answer<Object> lost = (Ending.Answer<Object>) first.next(false, null, 0);
        Ending.Answer<Object> unknown = (Ending.Answer<Object>) second.next(false, DOWN, 0);
        reached(lost, unknown);

        assertThat(lost.thrown()).isSameAs(refused);
        assertThat(refused.getSuppressed()).singleElement().isInstanceOf(LeaseLostException.class);
        assertThat(unknown.thrown()).isSameAs(failed);
        assertThat(failed.getSuppressed()).containsExactly(DOWN);
        assertThat(setup.events).containsExactly(Type.LEASE_LOST);
    }

    @Test
    void aCheckedFailureIsAnsweredWrappedAndAnErrorAsItIs() {
        IOException checked = new IOException("disk");
        AssertionError error = new AssertionError("bug");

        Ending.GiveBack<Object> wrapped = (Ending.GiveBack<Object>) finish(null, checked);
        Ending.GiveBack<Object> asItIs = (Ending.GiveBack<Object>) finish(null, error);

        assertThat(wrapped.answer()).isInstanceOf(WorkFailedException.class).hasCause(checked);
        assertThat(((Ending.Answer<Object>) asItIs.next(true, null, 0)).thrown()).isSameAs(error);
    }

    @Test
    void aFinalFailureIsStoredAndAnsweredAsEveryRetryWillBe() {
        setup.classifier = e -> FailureDecision.finalFailure("card_declined", "declined");
        Ending.StoreFailure<Object> store = (Ending.StoreFailure<Object>) finish(null, new IllegalStateException("no"));

        Ending.Answer<Object> stored = (Ending.Answer<Object>) store.next(true, null, 5);
        Ending.Answer<Object> notStored = (Ending.Answer<Object>) store.next(false, DOWN, 5);

        assertThat(store.kind()).isEqualTo(Ending.Write.Kind.COMPLETE);
        assertThat(setup.codec.decodeFailure(store.outcome())).containsExactly("card_declined", "declined");
        assertThat(stored.thrown()).isInstanceOf(FinalFailureException.class);
        assertThat(((FinalFailureException) stored.thrown()).code()).isEqualTo("card_declined");
        assertThat(stored.event()).isEqualTo(Type.FINAL_FAILURE_STORED);
        assertThat(stored.cachedOutcome()).isEqualTo(store.outcome());
        assertThat(notStored.thrown()).isSameAs(store.answer());
        assertThat(notStored.thrown().getSuppressed()).contains(DOWN);
        assertThat(notStored.event()).isEqualTo(Type.OUTCOME_NOT_STORED);
    }

    @Test
    void theWorksOwnLostLeaseWritesNothingAndAnotherClaimsIsAFailureOfTheWork() {
        Ending<Object> own = finish(null, new LeaseLostException(KEY, 7));
        Ending<Object> anothers = finish(null, new LeaseLostException(KEY, 8));

        assertThat(own).isInstanceOf(Ending.Answer.class);
        assertThat(((Ending.Answer<Object>) own).leaseLost()).isTrue();
        assertThat(anothers).isInstanceOf(Ending.GiveBack.class);
    }

    @Test
    void aClaimWonAfterTheDeadlineIsGivenBackAndReportedWhateverTheStoreSays() {
        call = setup.call();
        ClaimResult claim = ClaimResult.acquired(inProgress(call.fingerprint(), Duration.ofSeconds(30), null), NOW);

        Ending.GiveBack<Object> refuse = (Ending.GiveBack<Object>) call.refuse(claim);
        Ending.Answer<Object> lost = (Ending.Answer<Object>) refuse.next(false, null, 0);
        reached(refuse, lost);

        assertThat(refuse.kind()).isEqualTo(Ending.Write.Kind.RELEASE);
        assertThat(lost.thrown()).isInstanceOf(DeadlineExceededException.class);
        assertThat(setup.events).containsExactly(Type.LEASE_LOST, Type.DEADLINE_EXCEEDED);
    }

    @Test
    void aWorkThatCompletedTheRecordItselfIsConfirmedByTheRecord() {
        claimed(null);
        byte[] fp = call.fingerprint();
        byte[] outcome = setup.codec.encodeSuccess("ok");
        Ending.Confirm<Object> confirm = new Ending.Confirm<>(call.recorder(), 7, 1, fp, "ok", 3, null);

        Ending.Answer<Object> confirmed = (Ending.Answer<Object>) confirm.found(completed(fp, outcome), null);
        Ending<Object> notCompleted = confirm.found(inProgress(fp, Duration.ofSeconds(30), null), null);
        Ending.Answer<Object> anotherClaim = (Ending.Answer<Object>) confirm.found(new StoredRecord(KEY,
                RecordState.COMPLETED, fp, 8, 2, NOW, null, NOW.plusSeconds(60), outcome, null), null);
        Ending.Answer<Object> unknown = (Ending.Answer<Object>) confirm.found(null, DOWN);

        assertThat(confirmed.result().value()).isEqualTo("ok");
        assertThat(confirmed.event()).isEqualTo(Type.FIRST_EXECUTION);
        assertThat(confirmed.cachedSince()).as("counted from the claim").isEqualTo(3);
        assertThat(notCompleted).as("a programming error, stored as the marker").isInstanceOf(Ending.StoreMarker.class);
        assertThat(anotherClaim.thrown()).as("token 7 no longer holds the record").isInstanceOf(LeaseLostException.class);
        assertThat(unknown.result().stored()).isFalse();
        assertThat(unknown.event()).isEqualTo(Type.OUTCOME_NOT_STORED);
    }

    @Test
    void aWriteIsTriedAgainAfterFiftyThenAHundredMillisecondsWhileTheStoreIsBrieflyDown() {
        assertThat(Ending.retryPauseMillis(0, DOWN, 3)).isEqualTo(50);
        assertThat(Ending.retryPauseMillis(1, DOWN, 3)).isEqualTo(100);
        assertThat(Ending.retryPauseMillis(2, DOWN, 3)).as("the third try was the last").isEqualTo(-1);
        assertThat(Ending.retryPauseMillis(0, REFUSED, 3)).isEqualTo(-1);
        assertThat(Ending.retryPauseMillis(0, new IllegalArgumentException("too big"), 3)).isEqualTo(-1);
        assertThat(Ending.retryPauseMillis(0, null, 3)).as("it succeeded").isEqualTo(-1);
    }

    @Test
    void aWriteThatFailsOtherThanByTheStoreIsTheCallersFailureAndNothingElse() {
        IllegalStateException bug = new IllegalStateException("driver bug");
        setup.classifier = e -> FailureDecision.finalFailure("card_declined", "declined");
        Ending.Write<Object> complete = (Ending.Write<Object>) finish("ok", null);
        Ending.StoreMarker<Object> marker = (Ending.StoreMarker<Object>) complete.next(false, REFUSED, 0);
        Ending.StoreFailure<Object> storeFailure = (Ending.StoreFailure<Object>) finish(null, new IllegalStateException("no"));
        Ending.Confirm<Object> confirm = new Ending.Confirm<>(call.recorder(), 7, 1, call.fingerprint(), "ok", 3, null);

        for (Ending<Object> after : java.util.List.of(complete.next(false, bug, 0), marker.next(false, bug, 0),
                storeFailure.next(false, bug, 0), confirm.found(null, bug))) {
            Ending.Answer<Object> answer = (Ending.Answer<Object>) after;
            assertThat(answer.thrown()).isSameAs(bug);
            assertThat(answer.result()).isNull();
            assertThat(answer.leaseLost()).isFalse();
            assertThat(answer.event()).isNull();
            assertThat(answer.cachedOutcome()).isNull();
        }
    }

    @Test
    void anErrorOfTheStoreWhileGivingBackIsThrownAsItIs() {
        Ending.GiveBack<Object> release = (Ending.GiveBack<Object>) finish(null, new IllegalStateException("timeout"));
        AssertionError storeBug = new AssertionError("store bug");

        Ending.Answer<Object> answer = (Ending.Answer<Object>) release.next(false, storeBug, 0);
        assertThat(answer.thrown()).isSameAs(storeBug);
        assertThat(answer.leaseLost()).isFalse();
        assertThat(release.failure().getSuppressed()).isEmpty();
    }

    @Test
    void aConfirmedRecordHeldByTheSameTokenButStillInProgressOrOfAnotherTokenIsNotCompleted() {
        claimed(null);
        byte[] fp = call.fingerprint();
        Ending.Confirm<Object> confirm = new Ending.Confirm<>(call.recorder(), 7, 1, fp, "ok", 3, null);

        Ending<Object> anotherInProgress = confirm.found(new StoredRecord(KEY, RecordState.IN_PROGRESS, fp, 8, 2, NOW,
                NOW.plusSeconds(30), NOW.plusSeconds(60), null, null), null);
        Ending<Object> gone = confirm.found(null, null);

        assertThat(((Ending.Answer<Object>) anotherInProgress).thrown()).isInstanceOf(LeaseLostException.class);
        assertThat(((Ending.Answer<Object>) gone).thrown()).isInstanceOf(LeaseLostException.class);
        assertThat(((Ending.Answer<Object>) gone).leaseLost()).isTrue();
    }

    /** A result type of the work, which an untyped call answers as plain JSON. */
    public record Receipt(String id, int cents) {
    }

    @Test
    void theFirstCallerOfAnUntypedAtomicWorkGetsThePlainJsonAReplayWould() {
        claimed(null);
        byte[] fp = call.fingerprint();
        Receipt receipt = new Receipt("ch_1", 150);
        byte[] outcome = setup.codec.encodeSuccess(receipt);
        Ending.Confirm<Object> confirm = new Ending.Confirm<>(call.recorder(), 7, 1, fp, receipt, 3, null);

        Ending.Answer<Object> confirmed = (Ending.Answer<Object>) confirm.found(completed(fp, outcome), null);

        assertThat(confirmed.result().value()).isEqualTo(Map.of("id", "ch_1", "cents", 150));
        assertThat(confirmed.result().stored()).isTrue();
    }
}
