package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.secretKey;
import static dev.idem.engine.StoreFreeCall.KEY;
import static dev.idem.engine.StoreFreeCall.NOW;
import static dev.idem.engine.StoreFreeCall.REQUEST;
import static dev.idem.engine.StoreFreeCall.completed;
import static dev.idem.engine.StoreFreeCall.inProgress;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.DeadlineExceededException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.StepJournal;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The verdict on a record, whichever path read it (the call's own claim, another waiter's shared
 * poll, the near cache), on values alone: a record in, a {@link Verdict} out, no store and no
 * thread. Judging changes nothing: the events, the near-cache entry and the call's reconciled
 * fingerprint happen only when the verdict is applied, once.
 */
class VerdictTest {
    private static final KeyVersion F1 = secretKey("f1", 0x11);
    private static final KeyVersion F2 = secretKey("f2", 0x22);

    private final StoreFreeCall setup = new StoreFreeCall();

    @Test
    void aWonClaimRunsTheWorkAndAFirstClaimCostsNoVerdict() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();

        Verdict<Object> won = call.judge(ClaimResult.acquired(inProgress(fp, Duration.ofSeconds(30), null), NOW), fp, 0);
        Verdict<Object> takenOver = call.judge(ClaimResult.takenOver(inProgress(fp, Duration.ofSeconds(30), null), NOW),
                fp, 0);

        assertThat(won.kind()).isEqualTo(Verdict.Kind.RUN);
        assertThat(won).as("shared: a first execution allocates no verdict").isSameAs(Verdict.run());
        assertThat(won.event()).isNull();
        assertThat(takenOver.kind()).isEqualTo(Verdict.Kind.RUN);
        assertThat(takenOver.event()).isEqualTo(Type.LEASE_TAKEN_OVER);
        assertThat(setup.events).as("judging emits nothing").isEmpty();
        call.apply(takenOver);
        assertThat(setup.events).containsExactly(Type.LEASE_TAKEN_OVER);
    }

    @Test
    void aClaimWonWithAJournalHandsTheJournalToTheWork() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        byte[] journal = StepJournal.decode(null).append("charge", "1".getBytes()).bytes();

        Verdict<Object> verdict = call.judge(ClaimResult.takenOver(inProgress(fp, Duration.ZERO, journal), NOW), fp, 0);

        assertThat(verdict.kind()).isEqualTo(Verdict.Kind.RUN);
        assertThat(verdict.journal()).isEqualTo(journal);
    }

    @Test
    void aJournalThatCannotBeReadIsHandedBackUnrunWithAWarning() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        byte[] sealed = new Sealer(KeyRing.of(F1), false).seal(Sealer.Part.JOURNAL, KEY, fp,
                StepJournal.decode(null).append("charge", "1".getBytes()).bytes());

        Verdict<Object> verdict = call.judge(ClaimResult.takenOver(inProgress(fp, Duration.ZERO, sealed), NOW), fp, 0);

        assertThat(verdict.kind()).isEqualTo(Verdict.Kind.END);
        assertThat(verdict.warning()).contains(KEY.digest()).doesNotContain(KEY.key());
        Ending.GiveBack<Object> giveBack = (Ending.GiveBack<Object>) verdict.ending();
        assertThat(giveBack.kind()).isEqualTo(Ending.Write.Kind.HAND_BACK);
        assertThat(giveBack.token()).isEqualTo(7);
        assertThat(giveBack.answer()).isInstanceOf(OutcomeUnreadableException.class);
        assertThat(verdict.event()).isEqualTo(Type.LEASE_TAKEN_OVER);
    }

    @Test
    void aCompletedRecordReplaysAndIsCachedOnlyWhenApplied() {
        setup.nearCache = new NearCache(10, setup.ticks::get);
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        StoredRecord record = completed(fp, setup.codec.encodeSuccess(Map.of("id", "ch_1")));

        Verdict<Object> verdict = call.judge(ClaimResult.existing(record, NOW), fp, 1234);

        assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REPLAY);
        assertThat(verdict.replay().replayed()).isTrue();
        assertThat(verdict.replay().value()).isEqualTo(Map.of("id", "ch_1"));
        assertThat(verdict.event()).isEqualTo(Type.REPLAY);
        assertThat(verdict.recordAge()).isEqualTo(Duration.ofSeconds(10));
        assertThat(verdict.cached()).isSameAs(record);
        assertThat(verdict.cachedSince()).as("counted from before the claim was sent").isEqualTo(1234);
        assertThat(verdict.cachedLeftNanos()).isEqualTo(StoreFreeCall.TTL.toNanos());
        assertThat(setup.nearCache.get(KEY)).isNull();
        assertThat(setup.events).isEmpty();

        call.apply(verdict);

        assertThat(setup.nearCache.get(KEY).outcome()).isEqualTo(record.outcome());
        assertThat(setup.events).containsExactly(Type.REPLAY);
    }

    @Test
    void aStoredFinalFailureIsAnAnswerNotedAsAReplay() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        StoredRecord record = completed(fp, setup.codec.encodeFailure("card_declined", "declined"));

        Verdict<Object> verdict = call.judge(ClaimResult.existing(record, NOW), fp, 0);

        assertThat(verdict.kind()).isEqualTo(Verdict.Kind.ANSWER);
        assertThat(verdict.answer()).isInstanceOf(ReplayedFailureException.class);
        assertThat(((ReplayedFailureException) verdict.answer()).code()).isEqualTo("card_declined");
        assertThat(verdict.event()).isEqualTo(Type.REPLAY);
    }

    @Test
    void theNotStoredMarkerIsReplayedAsOutcomeNotStored() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();

        Verdict<Object> verdict = call.judge(ClaimResult.existing(completed(fp, setup.codec.encodeNotStored("too big")),
                NOW), fp, 0);

        assertThat(verdict.answer()).isInstanceOf(OutcomeNotStoredException.class);
        assertThat(((OutcomeNotStoredException) verdict.answer()).replayed()).isTrue();
        assertThat(((OutcomeNotStoredException) verdict.answer()).reason()).isEqualTo("too big");
    }

    @Test
    void anotherRequestsRecordIsAReusedKey() {
        Execution<Object> call = setup.call();
        byte[] other = setup.call("{\"amount\":200}", CallOptions.defaults()).fingerprint();

        Verdict<Object> verdict = call.judge(ClaimResult.existing(completed(other, setup.codec.encodeSuccess(1)), NOW),
                call.fingerprint(), 0);

        assertThat(verdict.answer()).isInstanceOf(KeyReusedException.class);
        assertThat(verdict.event()).isEqualTo(Type.KEY_REUSED);
        assertThat(verdict.reconciled()).isNull();
    }

    @Test
    void aFailFastDuplicateIsAConflictWhoseHintIsTheLeaseLeftIfShorter() {
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();

        Verdict<Object> verdict = call.judge(ClaimResult.existing(inProgress(fp, Duration.ofMillis(300), null), NOW),
                fp, 0);

        assertThat(verdict.answer()).isInstanceOf(RequestInProgressException.class);
        assertThat(((RequestInProgressException) verdict.answer()).retryAfter()).isEqualTo(Duration.ofMillis(300));
        assertThat(verdict.event()).isEqualTo(Type.IN_PROGRESS_CONFLICT);
    }

    @Test
    void aWaitingDuplicatePausesByTheScheduleAndReportsTheConflictOnce() {
        setup.inProgress = InProgressPolicy.waitUpTo(Duration.ofSeconds(10));
        setup.jitter = 0;
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        ClaimResult held = ClaimResult.existing(inProgress(fp, Duration.ofSeconds(20), null), NOW);

        Verdict<Object> first = call.judge(held, fp, 0);
        assertThat(call.judge(held, fp, 0).pauseMillis()).as("judging twice decides the same").isEqualTo(5);
        call.apply(first);
        Verdict<Object> second = call.judge(held, fp, 0);
        call.apply(second);
        Verdict<Object> third = call.judge(held, fp, 0);

        assertThat(first.kind()).isEqualTo(Verdict.Kind.PAUSE);
        assertThat(first.pauseMillis()).isEqualTo(5);
        assertThat(second.pauseMillis()).isEqualTo(10);
        assertThat(third.pauseMillis()).isEqualTo(20);
        assertThat(first.event()).isEqualTo(Type.IN_PROGRESS_CONFLICT);
        assertThat(second.event()).isNull();
        assertThat(first.conflict(KEY).retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(setup.events).containsExactly(Type.IN_PROGRESS_CONFLICT);
    }

    @Test
    void aWaitEndsWithAConflictOnceItsTimeIsUp() {
        setup.inProgress = InProgressPolicy.waitUpTo(Duration.ofSeconds(2));
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        ClaimResult held = ClaimResult.existing(inProgress(fp, Duration.ofSeconds(20), null), NOW);

        setup.ticks.addAndGet(Duration.ofMillis(1999).toNanos());
        assertThat(call.judge(held, fp, 0).pauseMillis()).as("never past the wait").isEqualTo(1);
        setup.ticks.addAndGet(Duration.ofMillis(1).toNanos());

        assertThat(call.judge(held, fp, 0).answer()).isInstanceOf(RequestInProgressException.class);
    }

    @Test
    void aDeadlineThatPassedBeforeTheClaimIsAnsweredWithNothingStored() {
        Deadline spent = Deadline.after(Duration.ofMillis(1), setup.ticks::get);
        setup.ticks.addAndGet(Duration.ofMillis(2).toNanos());
        Execution<Object> call = setup.call(REQUEST, CallOptions.builder().deadline(spent).build());

        Verdict<Object> verdict = call.beforeClaim(call.fingerprint());

        assertThat(verdict.answer()).isInstanceOf(DeadlineExceededException.class);
        assertThat(verdict.event()).isEqualTo(Type.DEADLINE_EXCEEDED);
        assertThat(verdict.attempt()).isZero();
    }

    @Test
    void theNearCacheIsJudgedAsARecordIs() {
        setup.nearCache = new NearCache(10, setup.ticks::get);
        Execution<Object> call = setup.call();
        byte[] fp = call.fingerprint();
        assertThat(call.beforeClaim(fp)).as("nothing cached: claim").isNull();
        setup.nearCache.put(KEY, fp, setup.codec.encodeSuccess("ok"), setup.ticks.get(), 1_000_000_000L, 2);

        Verdict<Object> replay = call.beforeClaim(fp);
        Verdict<Object> reused = setup.call("{\"amount\":200}", CallOptions.defaults())
                .beforeClaim(setup.call("{\"amount\":200}", CallOptions.defaults()).fingerprint());

        assertThat(replay.kind()).isEqualTo(Verdict.Kind.REPLAY);
        assertThat(replay.replay().value()).isEqualTo("ok");
        assertThat(replay.attempt()).isEqualTo(2);
        assertThat(replay.cached()).as("already cached").isNull();
        assertThat(reused.answer()).isInstanceOf(KeyReusedException.class);
    }

    @Test
    void aRecordClaimedBeforeKeyedFingerprintsIsThisRequestForEveryWaiterThatReadsIt() {
        byte[] plain = setup.call().fingerprint();
        setup.secrets = KeyRing.of(F1);
        setup.inProgress = InProgressPolicy.waitUpTo(Duration.ofSeconds(10));
        // Two waiters of one engine: one read the record with its own claim, the other sees it as the shared poll.
        Execution<Object> issuer = setup.call();
        Execution<Object> sharer = setup.call();
        byte[] keyed = issuer.fingerprint();
        assertThat(keyed).isNotEqualTo(plain);
        ClaimResult held = ClaimResult.existing(inProgress(plain, Duration.ofSeconds(20), null), NOW);

        assertThat(issuer.reclaimUnder(held, keyed)).as("claimed again at once under the older version")
                .isEqualTo(plain);
        for (Execution<Object> waiter : java.util.List.of(issuer, sharer)) {
            Verdict<Object> waiting = waiter.judge(held, keyed, 0);
            assertThat(waiting.kind()).isEqualTo(Verdict.Kind.PAUSE);
            assertThat(waiting.reconciled()).isEqualTo(plain);
            assertThat(waiter.claimedUnder(keyed)).as("not before the verdict is applied").isEqualTo(keyed);
            waiter.apply(waiting);
            assertThat(waiter.claimedUnder(keyed)).isEqualTo(plain);
            assertThat(waiter.reclaimUnder(held, plain)).isNull();
        }
        ClaimResult done = ClaimResult.existing(completed(plain, setup.codec.encodeSuccess("ok")), NOW);

        assertThat(issuer.judge(done, keyed, 0).replay().value()).isEqualTo("ok");
        assertThat(sharer.judge(done, keyed, 0).replay().value()).isEqualTo("ok");
        assertThat(setup.events).doesNotContain(Type.KEY_REUSED);
    }

    @Test
    void aRecordClaimedUnderARotatedSecretIsThisRequestToo() {
        setup.secrets = KeyRing.of(F1);
        byte[] underF1 = setup.call().fingerprint();
        setup.secrets = KeyRing.of(F2, F1);
        Execution<Object> call = setup.call();
        byte[] underF2 = call.fingerprint();

        Verdict<Object> verdict = call.judge(ClaimResult.existing(completed(underF1, setup.codec.encodeSuccess("ok")),
                NOW), underF2, 0);
        Verdict<Object> otherRequest = setup.call("{\"amount\":200}", CallOptions.defaults())
                .judge(ClaimResult.existing(completed(underF1, setup.codec.encodeSuccess("ok")), NOW),
                        setup.call("{\"amount\":200}", CallOptions.defaults()).fingerprint(), 0);

        assertThat(underF2).isNotEqualTo(underF1);
        assertThat(verdict.kind()).isEqualTo(Verdict.Kind.REPLAY);
        assertThat(verdict.reconciled()).isEqualTo(underF1);
        assertThat(otherRequest.answer()).isInstanceOf(KeyReusedException.class);
    }

    @Test
    void aCompletedRecordOfTheOlderVersionIsNotClaimedAgain() {
        byte[] plain = setup.call().fingerprint();
        setup.secrets = KeyRing.of(F1);
        Execution<Object> call = setup.call();

        assertThat(call.reclaimUnder(ClaimResult.existing(completed(plain, setup.codec.encodeSuccess("ok")), NOW),
                call.fingerprint())).isNull();
    }
}
