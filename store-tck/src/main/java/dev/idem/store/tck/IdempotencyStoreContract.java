package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store contract, as JUnit 5 tests. An adapter's test extends this class and
 * implements {@link #createFixture()}; everything else is inherited.
 *
 * <p>Every test works under its own random scope, so tests never see each other's records
 * and the backend needs no cleaning between them. On a simulated clock every test first moves
 * the clock by an odd fraction of a second (and of a millisecond), so no deadline of the test
 * falls on a whole second: a store that keeps coarser time than it reports cannot hide.
 */
@Timeout(120)
public abstract class IdempotencyStoreContract {
    private static final long TOKEN_SEED = 0x5EED_1DE3L;
    /** Seeds of the random concurrent histories each run checks. */
    private static final int HISTORY_SEEDS = 6;

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    /** {@code fixture.store()}. */
    protected IdempotencyStore store;
    private String scope;
    private final AtomicLong tokens = new AtomicLong(TOKEN_SEED);

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fixture around a fresh store
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    @BeforeEach
    final void setUpContract() throws Exception {
        fixture = createFixture();
        store = fixture.store();
        scope = "tck-" + UUID.randomUUID();
        if (fixture.clockIsSimulated()) {
            fixture.advance(KitContext.OFF_THE_SECOND);
        }
    }

    @AfterEach
    final void tearDownContract() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /**
     * A key in this test's scope.
     *
     * @param token the client key
     * @return a key in this test's scope
     */
    protected IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "charge", token);
    }

    /**
     * A distinct fencing token.
     *
     * @return a distinct fencing token
     */
    protected long token() {
        return tokens.incrementAndGet() * 0x9E3779B97F4A7C15L;
    }

    /**
     * A distinct fingerprint for {@code s}.
     *
     * @param s any text
     * @return a distinct fingerprint for {@code s}
     */
    protected static byte[] fp(String s) {
        return ("fp:" + s).getBytes(StandardCharsets.UTF_8);
    }

    private ClaimResult claim(IdempotencyKey key, String fp, long token) {
        return store.claim(key, fp(fp), token, fixture.lease(), fixture.ttl());
    }

    // The kit's larger parts live in their own classes; these tests run them on every store.

    KitContext kit() {
        return new KitContext(fixture, scope, this::token);
    }

    @Test
    void leaseLapsesExactlyAtItsDeadline() throws Exception {
        Boundaries.leaseLapsesExactlyAtItsDeadline(kit());
    }

    @Test
    void recordsExpireExactlyAtExpiresAt() throws Exception {
        Boundaries.recordsExpireExactlyAtExpiresAt(kit());
    }

    @Test
    void extendingALeaseMovesTheExpiry() throws Exception {
        Boundaries.extendingALeaseMovesTheExpiry(kit());
    }

    @Test
    void foreignTokensAreRefusedOnALapsedLease() throws Exception {
        Boundaries.foreignTokensAreRefusedOnALapsedLease(kit());
    }

    @Test
    void deadlinesAreKeptToTheMillisecond() throws Exception {
        Lifetimes.deadlinesAreKeptToTheMillisecond(kit());
    }

    @Test
    void aLeaseLongerThanTheTtlKeepsTheRecordAlive() throws Exception {
        Lifetimes.aLeaseLongerThanTheTtlKeepsTheRecordAlive(kit());
    }

    @Test
    void extendingALeaseNeverShortensTheRecordsLife() throws Exception {
        Lifetimes.extendingALeaseNeverShortensTheRecordsLife(kit());
    }

    @Test
    void purgeLeavesLiveRecordsAlone() throws Exception {
        Lifetimes.purgeLeavesLiveRecordsAlone(kit());
    }

    @Test
    void keysDifferingInOnePartAreSeparate() {
        Boundaries.keysDifferingInOnePartAreSeparate(kit());
    }

    @Test
    void twoScopesAlikeWithOneOperationAndKeyAreTwoRecords() {
        ScopeIsolation.scopesAlikeAreSeparate(kit());
    }

    @Test
    void lockstepClaimsOfOneKeyHaveOneWinner() throws Exception {
        LockstepRaces.claimsMeet(kit());
    }

    @Test
    void lockstepTakeoversOfOneLapsedLeaseHaveOneWinner() throws Exception {
        LockstepRaces.takeoversMeet(kit());
    }

    @Test
    void staleCompleteRacingATakeoverIsRefused() throws Exception {
        LockstepRaces.staleHolderAgainstTakeover(kit(), List.of(LockstepRaces.StaleMove.COMPLETE),
                LockstepRaces.MEETINGS);
    }

    @Test
    void staleReleaseRacingATakeoverIsRefused() throws Exception {
        LockstepRaces.staleHolderAgainstTakeover(kit(), List.of(LockstepRaces.StaleMove.RELEASE),
                LockstepRaces.MEETINGS);
    }

    @Test
    void staleExtendRacingATakeoverIsRefused() throws Exception {
        LockstepRaces.staleHolderAgainstTakeover(kit(), List.of(LockstepRaces.StaleMove.EXTEND),
                LockstepRaces.MEETINGS);
    }

    @Test
    void staleCheckpointRacingATakeoverIsRefusedOrSeen() throws Exception {
        LockstepRaces.staleHolderAgainstTakeover(kit(), List.of(LockstepRaces.StaleMove.CHECKPOINT),
                LockstepRaces.MEETINGS);
    }

    @Test
    void duplicatesRacingAReleaseNeverSeeItReleased() throws Exception {
        LockstepRaces.duplicatesRacingARelease(kit());
    }

    @Test
    void holderMovesRacingDuplicatesAreLinearizable() throws Exception {
        LockstepRaces.holderAgainstDuplicates(kit(), LockstepRaces.MEETINGS);
    }

    @Test
    void concurrentHistoriesAreLinearizable() throws Exception {
        for (long seed = 1; seed <= HISTORY_SEEDS; seed++) {
            ConcurrentHistories.run(kit(), seed);
        }
    }

    @Test
    void readsAfterAnswersAreLinearizable() throws Exception {
        FollowUpHistories.run(kit(), 23);
    }

    @Test
    void isBackedByItselfAndThroughDecoratorsButNotByAnotherStore() {
        Declared.isBackedByItselfAndThroughDecoratorsOnly(kit());
    }

    @Test
    void anOutcomeOverTheDeclaredLimitIsRefusedAndNothingIsStored() {
        Declared.anOutcomeOverTheLimitIsRefusedAndNothingIsStored(kit());
    }

    @Test
    void outcomesAndJournalsAtTheDeclaredLimitAreStoredWhole() {
        Declared.valuesAtTheLimitAreStoredWhole(kit());
    }

    @Test
    void aReclaimedRecordLivesFromTheReclaim() throws Exception {
        Renewals.aReclaimedRecordLivesFromTheReclaim(kit());
    }

    @Test
    void aTakenOverRecordLivesFromTheTakeover() throws Exception {
        Renewals.aTakenOverRecordLivesFromTheTakeover(kit());
    }

    @Test
    void claimOnAbsentKeyAcquiresAnInProgressRecord() {
        long t = token();
        ClaimResult r = claim(key("k1"), "a", t);
        assertThat(r.status()).isEqualTo(Status.ACQUIRED);
        StoredRecord rec = r.record();
        assertThat(rec.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(rec.fencingToken()).isEqualTo(t);
        assertThat(rec.attempt()).isEqualTo(1);
        assertThat(rec.fingerprint()).isEqualTo(fp("a"));
        assertThat(rec.outcome()).isNull();
        assertThat(rec.leaseExpiresAt()).isAfter(r.storeTime());
        assertThat(rec.leaseExpiresAt()).isBeforeOrEqualTo(r.storeTime().plus(fixture.lease()).plusMillis(1));
        assertThat(rec.expiresAt()).isAfterOrEqualTo(rec.leaseExpiresAt());
        assertThat(store.find(key("k1"))).get().extracting(StoredRecord::state).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void duplicateClaimDuringLiveLeaseSeesTheExistingRecord() {
        long t = token();
        claim(key("k1"), "a", t);
        ClaimResult dup = claim(key("k1"), "a", token());
        assertThat(dup.status()).isEqualTo(Status.EXISTING);
        assertThat(dup.claimed()).isFalse();
        assertThat(dup.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(dup.record().fingerprint()).isEqualTo(fp("a"));
        assertThat(dup.record().fencingToken()).isEqualTo(t);
    }

    @Test
    void completedRecordIsReturnedByClaimWithItsOutcome() {
        long t = token();
        claim(key("k1"), "a", t);
        byte[] outcome = "charged 10 EUR".getBytes(StandardCharsets.UTF_8);
        assertThat(store.complete(key("k1"), t, outcome, fixture.ttl())).isTrue();

        ClaimResult replay = claim(key("k1"), "a", token());
        assertThat(replay.status()).isEqualTo(Status.EXISTING);
        assertThat(replay.record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(replay.record().outcome()).isEqualTo(outcome);
        assertThat(replay.record().fingerprint()).isEqualTo(fp("a"));
        assertThat(replay.record().leaseExpiresAt()).isNull();

        StoredRecord found = store.find(key("k1")).orElseThrow();
        assertThat(found.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(found.outcome()).isEqualTo(outcome);
    }

    @Test
    void claimWithAnotherFingerprintReturnsTheOriginalRecordUnchanged() {
        long t = token();
        claim(key("k1"), "a", t);
        store.complete(key("k1"), t, new byte[] {1}, fixture.ttl());
        ClaimResult other = claim(key("k1"), "b", token());
        assertThat(other.status()).isEqualTo(Status.EXISTING);
        assertThat(other.record().fingerprint()).isEqualTo(fp("a"));
        assertThat(other.record().outcome()).containsExactly(1);
    }

    @Test
    void completeIsFencedByTheToken() {
        long t = token();
        claim(key("k1"), "a", t);
        assertThat(store.complete(key("k1"), t + 1, new byte[] {9}, fixture.ttl())).isFalse();
        StoredRecord rec = store.find(key("k1")).orElseThrow();
        assertThat(rec.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(rec.outcome()).isNull();
        assertThat(store.complete(key("k1"), t, new byte[] {7}, fixture.ttl())).isTrue();
    }

    @Test
    void completeOnAbsentKeyFails() {
        assertThat(store.complete(key("nobody"), token(), new byte[] {1}, fixture.ttl())).isFalse();
        assertThat(store.find(key("nobody"))).isEmpty();
    }

    @Test
    void repeatedCompleteWithTheSameTokenSucceedsAndKeepsTheFirstOutcome() {
        long t = token();
        claim(key("k1"), "a", t);
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isTrue();
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isTrue();
        assertThat(store.complete(key("k1"), t + 1, new byte[] {2}, fixture.ttl())).isFalse();
        assertThat(store.find(key("k1")).orElseThrow().outcome()).containsExactly(1);
    }

    @Test
    void releaseIsFencedAndLetsTheNextClaimRunAgainWithTheNextAttempt() {
        long t = token();
        claim(key("k1"), "a", t);
        assertThat(store.release(key("k1"), t + 1)).isFalse();
        assertThat(store.find(key("k1")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);

        assertThat(store.release(key("k1"), t)).isTrue();
        assertThat(store.find(key("k1")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        // A release retried after a lost reply is acknowledged again, not mistaken for a lost lease.
        assertThat(store.release(key("k1"), t)).isTrue();
        assertThat(store.release(key("k1"), t + 1)).isFalse();
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isFalse();

        long t2 = token();
        // A released key is free, even for another request.
        ClaimResult again = claim(key("k1"), "b", t2);
        assertThat(again.status()).isEqualTo(Status.ACQUIRED);
        assertThat(again.record().attempt()).isEqualTo(2);
        assertThat(again.record().fencingToken()).isEqualTo(t2);
        assertThat(again.record().fingerprint()).isEqualTo(fp("b"));
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isFalse();
        assertThat(store.complete(key("k1"), t2, new byte[] {2}, fixture.ttl())).isTrue();
    }

    @Test
    void releaseOfACompletedRecordFailsAndKeepsTheOutcome() {
        long t = token();
        claim(key("k1"), "a", t);
        store.complete(key("k1"), t, new byte[] {5}, fixture.ttl());
        assertThat(store.release(key("k1"), t)).isFalse();
        StoredRecord rec = store.find(key("k1")).orElseThrow();
        assertThat(rec.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(rec.outcome()).containsExactly(5);
    }

    @Test
    void lapsedLeaseIsTakenOverAndTheStaleWorkerIsFencedOut() throws Exception {
        long stale = token();
        claim(key("k1"), "a", stale);
        fixture.advance(fixture.lease().plus(fixture.slack()));

        long fresh = token();
        ClaimResult takeover = claim(key("k1"), "a", fresh);
        assertThat(takeover.status()).isEqualTo(Status.TAKEN_OVER);
        assertThat(takeover.record().attempt()).isEqualTo(2);
        assertThat(takeover.record().fencingToken()).isEqualTo(fresh);
        assertThat(takeover.record().leaseExpiresAt()).isAfter(takeover.storeTime());

        assertThat(store.complete(key("k1"), stale, "stale".getBytes(StandardCharsets.UTF_8), fixture.ttl()))
                .isFalse();
        assertThat(store.release(key("k1"), stale)).isFalse();
        assertThat(store.extendLease(key("k1"), stale, fixture.lease())).isEmpty();
        assertThat(store.complete(key("k1"), fresh, "fresh".getBytes(StandardCharsets.UTF_8), fixture.ttl()))
                .isTrue();
        assertThat(store.find(key("k1")).orElseThrow().outcome())
                .isEqualTo("fresh".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void lapsedLeaseIsNotTakenOverByAnotherRequest() throws Exception {
        long t = token();
        claim(key("k1"), "a", t);
        fixture.advance(fixture.lease().plus(fixture.slack()));
        ClaimResult other = claim(key("k1"), "b", token());
        assertThat(other.status()).isEqualTo(Status.EXISTING);
        assertThat(other.record().fingerprint()).isEqualTo(fp("a"));
        assertThat(other.record().fencingToken()).isEqualTo(t);
    }

    @Test
    void holderWhoseLeaseLapsedWithoutTakeoverMayStillComplete() throws Exception {
        long t = token();
        claim(key("k1"), "a", t);
        fixture.advance(fixture.lease().plus(fixture.slack()));
        assertThat(store.complete(key("k1"), t, new byte[] {3}, fixture.ttl())).isTrue();
        ClaimResult replay = claim(key("k1"), "a", token());
        assertThat(replay.status()).isEqualTo(Status.EXISTING);
        assertThat(replay.record().outcome()).containsExactly(3);
    }

    @Test
    void extendLeaseKeepsTheHolderAndIsFenced() throws Exception {
        long t = token();
        ClaimResult first = claim(key("k1"), "a", t);
        Duration longer = fixture.lease().multipliedBy(3);
        Optional<Instant> extended = store.extendLease(key("k1"), t, longer);
        assertThat(extended).isPresent();
        assertThat(extended.get()).isAfter(first.record().leaseExpiresAt());
        assertThat(store.extendLease(key("k1"), t + 1, longer)).isEmpty();

        fixture.advance(fixture.lease().plus(fixture.slack()));
        ClaimResult dup = claim(key("k1"), "a", token());
        assertThat(dup.status()).isEqualTo(Status.EXISTING);
        assertThat(dup.record().leaseExpiresAt()).isEqualTo(extended.get());
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isTrue();
        assertThat(store.extendLease(key("k1"), t, longer)).isEmpty();
    }

    @Test
    void expiredRecordCountsAsAbsent() throws Exception {
        long t = token();
        claim(key("k1"), "a", t);
        store.complete(key("k1"), t, new byte[] {1}, fixture.ttl());
        fixture.advance(fixture.ttl().plus(fixture.slack()));

        assertThat(store.find(key("k1"))).isEmpty();
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl()))
                .as("complete of an expired record").isFalse();
        assertThat(store.release(key("k1"), t)).as("release of an expired record").isFalse();
    }

    @Test
    void expiredRecordCanBeClaimedAfresh() throws Exception {
        long t = token();
        claim(key("k1"), "a", t);
        store.complete(key("k1"), t, new byte[] {1}, fixture.ttl());
        fixture.advance(fixture.ttl().plus(fixture.slack()));
        ClaimResult fresh = claim(key("k1"), "b", token());
        assertThat(fresh.status()).isEqualTo(Status.ACQUIRED);
        assertThat(fresh.record().attempt()).isEqualTo(1);
        assertThat(fresh.record().fingerprint()).isEqualTo(fp("b"));
    }

    @Test
    void completeSetsTheRequestedTtl() {
        long t = token();
        claim(key("k1"), "a", t);
        Duration ttl = fixture.ttl().multipliedBy(5);
        store.complete(key("k1"), t, new byte[] {1}, ttl);
        ClaimResult r = claim(key("k1"), "a", token());
        Instant expected = r.storeTime().plus(ttl);
        assertThat(r.record().expiresAt()).isBetween(expected.minusSeconds(5), expected.plusMillis(1));
    }

    @Test
    void purgeRemovesOnlyExpiredRecordsInBatches() throws Exception {
        for (int i = 0; i < 5; i++) {
            long t = token();
            claim(key("short" + i), "a", t);
            store.complete(key("short" + i), t, new byte[] {1}, fixture.ttl());
        }
        for (int i = 0; i < 3; i++) {
            long t = token();
            claim(key("long" + i), "a", t);
            store.complete(key("long" + i), t, new byte[] {2}, fixture.ttl().multipliedBy(1000));
        }
        fixture.advance(fixture.ttl().plus(fixture.slack()));
        int total = 0;
        for (int round = 0; round < 100; round++) {
            int n = store.purgeExpired(2);
            assertThat(n).isBetween(0, 2);
            total += n;
            if (n == 0) {
                break;
            }
        }
        // Other tests' expired records may share the backend; ours must all be gone.
        if (!store.capabilities().nativeExpiry()) {
            assertThat(total).isGreaterThanOrEqualTo(5);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(store.find(key("short" + i))).isEmpty();
        }
        for (int i = 0; i < 3; i++) {
            assertThat(store.find(key("long" + i))).get().extracting(StoredRecord::outcome)
                    .isEqualTo(new byte[] {2});
        }
    }

    @Test
    void scopeOperationAndKeyAreIsolatedEvenWhenTheyShareDelimiters() {
        String base = UUID.randomUUID().toString();
        List<IdempotencyKey> keys = List.of(
                IdempotencyKey.of(base + ":a", "b", "c"),
                IdempotencyKey.of(base, "a:b", "c"),
                IdempotencyKey.of(base, "a", "b:c"),
                IdempotencyKey.of(base + "{a}", "b", "c"),
                IdempotencyKey.of(base, "{a}b", "c"),
                IdempotencyKey.of(base, "a", "{b}c"),
                IdempotencyKey.of(base + "\u00e9", "op/\u20ac", "c"),
                IdempotencyKey.of(base, "a", "b"),
                IdempotencyKey.of(base, "b", "a"));
        for (IdempotencyKey k : keys) {
            long t = token();
            ClaimResult r = store.claim(k, fp("x"), t, fixture.lease(), fixture.ttl());
            assertThat(r.status()).as("claim of %s", k).isEqualTo(Status.ACQUIRED);
            assertThat(store.complete(k, t, k.toString().getBytes(StandardCharsets.UTF_8), fixture.ttl())).isTrue();
        }
        for (IdempotencyKey k : keys) {
            StoredRecord rec = store.find(k).orElseThrow();
            assertThat(rec.key()).isEqualTo(k);
            assertThat(new String(rec.outcome(), StandardCharsets.UTF_8)).isEqualTo(k.toString());
        }
    }

    @Test
    void outcomesAreBinarySafeUpToTheLargeSize() {
        byte[] allBytes = new byte[512];
        for (int i = 0; i < allBytes.length; i++) {
            allBytes[i] = (byte) i;
        }
        byte[] large = new byte[fixture.largeOutcomeBytes()];
        new Random(42).nextBytes(large);
        for (byte[] outcome : List.of(new byte[0], allBytes, large)) {
            IdempotencyKey k = key("bin" + outcome.length);
            long t = token();
            claim(k, "a", t);
            assertThat(store.complete(k, t, outcome, fixture.ttl())).isTrue();
            assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(outcome);
            assertThat(store.find(k).orElseThrow().outcome()).isEqualTo(outcome);
        }
    }

    @Test
    void fingerprintsAndTokensRoundTripExactly() {
        byte[] binaryFp = new byte[32];
        new Random(7).nextBytes(binaryFp);
        long[] edgeTokens = {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE};
        for (int i = 0; i < edgeTokens.length; i++) {
            IdempotencyKey k = key("tok" + i);
            ClaimResult r = store.claim(k, binaryFp, edgeTokens[i], fixture.lease(), fixture.ttl());
            assertThat(r.record().fencingToken()).isEqualTo(edgeTokens[i]);
            StoredRecord found = store.find(k).orElseThrow();
            assertThat(found.fencingToken()).isEqualTo(edgeTokens[i]);
            assertThat(found.fingerprint()).isEqualTo(binaryFp);
            assertThat(store.complete(k, edgeTokens[i], new byte[] {1}, fixture.ttl())).isTrue();
        }
    }

    @Test
    void findOfAnAbsentKeyIsEmpty() {
        assertThat(store.find(key("never"))).isEmpty();
    }

    @Test
    void manyThreadsClaimingTheSameKeysYieldExactlyOneWinnerPerKey() throws Exception {
        int threads = 16;
        int keys = 10;
        List<List<ClaimResult>> perKey = Races.run(threads, keys, (thread, k) -> {
            IdempotencyStore s = thread % 2 == 0 ? store : fixture.otherStore();
            return s.claim(key("race" + k), fp("a"), token(), fixture.lease(), fixture.ttl());
        });
        for (int k = 0; k < keys; k++) {
            List<ClaimResult> results = perKey.get(k);
            assertThat(results.stream().filter(ClaimResult::claimed)).as("winners of key %d", k).hasSize(1);
            long winner = results.stream().filter(ClaimResult::claimed).findFirst().orElseThrow()
                    .record().fencingToken();
            assertThat(results.stream().filter(r -> !r.claimed()))
                    .allSatisfy(r -> assertThat(r.record().fencingToken()).isEqualTo(winner));
        }
    }

    @Test
    void manyThreadsRacingToTakeOverALapsedLeaseYieldExactlyOneWinner() throws Exception {
        int keys = 4;
        for (int k = 0; k < keys; k++) {
            claim(key("takeover" + k), "a", token());
        }
        fixture.advance(fixture.lease().plus(fixture.slack()));
        List<List<ClaimResult>> perKey = Races.run(12, keys, (thread, k) -> {
            IdempotencyStore s = thread % 2 == 0 ? store : fixture.otherStore();
            return s.claim(key("takeover" + k), fp("a"), token(), fixture.lease(), fixture.ttl());
        });
        for (List<ClaimResult> results : perKey) {
            assertThat(results.stream().filter(r -> r.status() == Status.TAKEN_OVER)).hasSize(1);
            assertThat(results.stream().filter(r -> r.status() == Status.ACQUIRED)).isEmpty();
        }
    }

    @Test
    void racingCompleteAndReleaseFromStaleAndCurrentHoldersLeaveOneConsistentOutcome() throws Exception {
        // The stale holder completes, releases, extends and checkpoints while two others take the key
        // over and complete it, all at one instant (see LockstepRaces for what is asserted).
        LockstepRaces.staleHolderAgainstTakeover(kit(), List.of(LockstepRaces.StaleMove.values()),
                LockstepRaces.MEETINGS / 4);
    }

    // ---- SPI v2: creation time and the step journal (checkpoint) ----

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void v2ClaimOfAnAbsentKeyHasNoJournalAndIsCreatedAtTheClaim() {
        ClaimResult r = claim(key("k1"), "a", token());
        assertThat(r.record().journal()).isNull();
        assertThat(r.record().createdAt()).isEqualTo(r.storeTime());
        StoredRecord found = store.find(key("k1")).orElseThrow();
        assertThat(found.createdAt()).isEqualTo(r.storeTime());
        assertThat(found.journal()).isNull();
    }

    @Test
    void v2CheckpointIsFencedByTheTokenAndChangesNothingElse() {
        long t = token();
        ClaimResult r = claim(key("k1"), "a", t);
        assertThat(store.checkpoint(key("k1"), t + 1, bytes("stale"))).isFalse();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isNull();

        assertThat(store.checkpoint(key("k1"), t, bytes("step1"))).isTrue();
        StoredRecord after = store.find(key("k1")).orElseThrow();
        assertThat(after.journal()).isEqualTo(bytes("step1"));
        assertThat(after.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(after.fencingToken()).isEqualTo(t);
        assertThat(after.attempt()).isEqualTo(1);
        assertThat(after.createdAt()).isEqualTo(r.record().createdAt());
        assertThat(after.leaseExpiresAt()).isEqualTo(r.record().leaseExpiresAt());
        assertThat(after.expiresAt()).isEqualTo(r.record().expiresAt());

        assertThat(store.checkpoint(key("k1"), t, bytes("step1+step2"))).isTrue();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(bytes("step1+step2"));
        assertThat(store.checkpoint(key("nobody"), t, bytes("x"))).isFalse();
        assertThat(store.find(key("nobody"))).isEmpty();
    }

    @Test
    void v2RepeatedCheckpointWithTheSameTokenAndBytesSucceedsAgain() {
        long t = token();
        claim(key("k1"), "a", t);
        byte[] journal = new byte[512];
        for (int i = 0; i < journal.length; i++) {
            journal[i] = (byte) i;
        }
        assertThat(store.checkpoint(key("k1"), t, journal)).isTrue();
        assertThat(store.checkpoint(key("k1"), t, journal.clone())).isTrue();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(journal);
    }

    @Test
    void v2TakeoverReturnsTheJournalAndCreationTimeAndTheStaleWorkerCannotCheckpoint() throws Exception {
        long stale = token();
        ClaimResult first = claim(key("k1"), "a", stale);
        assertThat(store.checkpoint(key("k1"), stale, bytes("reserved"))).isTrue();
        fixture.advance(fixture.lease().plus(fixture.slack()));
        // A holder whose lease lapsed without a takeover still holds the only valid token.
        assertThat(store.checkpoint(key("k1"), stale, bytes("reserved+charged"))).isTrue();

        long fresh = token();
        ClaimResult takeover = claim(key("k1"), "a", fresh);
        assertThat(takeover.status()).isEqualTo(Status.TAKEN_OVER);
        assertThat(takeover.record().journal()).isEqualTo(bytes("reserved+charged"));
        assertThat(takeover.record().createdAt()).isEqualTo(first.record().createdAt());

        assertThat(store.checkpoint(key("k1"), stale, bytes("stale"))).isFalse();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(bytes("reserved+charged"));
        assertThat(store.checkpoint(key("k1"), fresh, bytes("reserved+charged+shipped"))).isTrue();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(bytes("reserved+charged+shipped"));
    }

    @Test
    void v2ReleaseAndExtendKeepTheJournalAndAReclaimKeepsItOnlyForTheSameRequest() {
        long t = token();
        ClaimResult first = claim(key("same"), "a", t);
        assertThat(store.checkpoint(key("same"), t, bytes("j"))).isTrue();
        assertThat(store.extendLease(key("same"), t, fixture.lease().multipliedBy(2))).isPresent();
        assertThat(store.find(key("same")).orElseThrow().journal()).isEqualTo(bytes("j"));
        assertThat(store.release(key("same"), t)).isTrue();
        StoredRecord released = store.find(key("same")).orElseThrow();
        assertThat(released.state()).isEqualTo(RecordState.RELEASED);
        assertThat(released.journal()).isEqualTo(bytes("j"));
        assertThat(store.checkpoint(key("same"), t, bytes("after release"))).isFalse();
        ClaimResult again = claim(key("same"), "a", token());
        assertThat(again.status()).isEqualTo(Status.ACQUIRED);
        assertThat(again.record().journal()).isEqualTo(bytes("j"));
        assertThat(again.record().createdAt()).isEqualTo(first.record().createdAt());

        long u = token();
        ClaimResult other = claim(key("other"), "a", u);
        assertThat(store.checkpoint(key("other"), u, bytes("j"))).isTrue();
        assertThat(store.release(key("other"), u)).isTrue();
        ClaimResult changed = claim(key("other"), "b", token());
        assertThat(changed.status()).isEqualTo(Status.ACQUIRED);
        assertThat(changed.record().journal()).isNull();
        assertThat(changed.record().createdAt()).isEqualTo(other.record().createdAt());
        assertThat(store.find(key("other")).orElseThrow().journal()).isNull();
    }

    @Test
    void v2CompleteDropsTheJournalAndEndsCheckpoints() {
        long t = token();
        ClaimResult first = claim(key("k1"), "a", t);
        assertThat(store.checkpoint(key("k1"), t, bytes("j"))).isTrue();
        assertThat(store.complete(key("k1"), t, new byte[] {1}, fixture.ttl())).isTrue();
        StoredRecord done = store.find(key("k1")).orElseThrow();
        assertThat(done.journal()).isNull();
        assertThat(done.createdAt()).isEqualTo(first.record().createdAt());
        assertThat(store.checkpoint(key("k1"), t, bytes("late"))).isFalse();
        ClaimResult replay = claim(key("k1"), "a", token());
        assertThat(replay.record().journal()).isNull();
        assertThat(replay.record().outcome()).containsExactly(1);
    }

    @Test
    void v2AnExpiredRecordStartsANewLifeWithoutItsJournal() throws Exception {
        long t = token();
        ClaimResult first = claim(key("k1"), "a", t);
        assertThat(store.checkpoint(key("k1"), t, bytes("j"))).isTrue();
        fixture.advance(fixture.ttl().plus(fixture.slack()));
        assertThat(store.checkpoint(key("k1"), t, bytes("expired"))).isFalse();
        ClaimResult fresh = claim(key("k1"), "a", token());
        assertThat(fresh.status()).isEqualTo(Status.ACQUIRED);
        assertThat(fresh.record().attempt()).isEqualTo(1);
        assertThat(fresh.record().journal()).isNull();
        assertThat(fresh.record().createdAt()).isEqualTo(fresh.storeTime());
        assertThat(fresh.record().createdAt()).isAfter(first.record().createdAt());
    }

    @Test
    void v2AJournalOverTheLimitIsRefusedAndNothingIsStored() {
        long t = token();
        claim(key("k1"), "a", t);
        assertThat(store.checkpoint(key("k1"), t, bytes("kept"))).isTrue();
        int max = store.capabilities().maxOutcomeBytes();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.checkpoint(key("k1"), t, new byte[max + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(bytes("kept"));
        byte[] large = new byte[fixture.largeOutcomeBytes()];
        new Random(11).nextBytes(large);
        assertThat(store.checkpoint(key("k1"), t, large)).isTrue();
        assertThat(store.find(key("k1")).orElseThrow().journal()).isEqualTo(large);
    }

    @Test
    void v2AStaleCheckpointRacingATakeoverIsEitherSeenByTheTakerOrRefused() throws Exception {
        int keys = 6;
        List<Long> stale = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            long t = token();
            stale.add(t);
            claim(key("ckpt" + k), "a", t);
            assertThat(store.checkpoint(key("ckpt" + k), t, bytes("before"))).isTrue();
        }
        fixture.advance(fixture.lease().plus(fixture.slack()));
        List<List<Object>> perKey = Races.run(2, keys, (thread, k) -> thread == 0
                ? (Object) store.checkpoint(key("ckpt" + k), stale.get(k), bytes("stale"))
                : fixture.otherStore().claim(key("ckpt" + k), fp("a"), token(), fixture.lease(), fixture.ttl()));
        for (int k = 0; k < keys; k++) {
            boolean checkpointed = perKey.get(k).stream().filter(o -> o instanceof Boolean).map(o -> (Boolean) o)
                    .findFirst().orElseThrow();
            ClaimResult takeover = perKey.get(k).stream().filter(o -> o instanceof ClaimResult)
                    .map(o -> (ClaimResult) o).findFirst().orElseThrow();
            assertThat(takeover.status()).isEqualTo(Status.TAKEN_OVER);
            // Linearizable: a checkpoint that succeeded came before the takeover, which then carries it.
            assertThat(takeover.record().journal()).isEqualTo(bytes(checkpointed ? "stale" : "before"));
            assertThat(store.find(key("ckpt" + k)).orElseThrow().journal())
                    .isEqualTo(bytes(checkpointed ? "stale" : "before"));
        }
    }
}
