package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The duplicates of a key waiting in one engine share one claim at a time: one issues it, the
 * rest read its answer as the record it found, a fresh answer is reused for the key's poll
 * interval (which grows while the key stays in progress), failures are never reused, and old
 * answers are dropped. Time is a hand-moved ticker.
 */
class SharedPollsTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant", "charge", "k-1");
    private static final Instant STORE_NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long MS = 1_000_000L;

    private long now = 1_000 * MS;
    private final SharedPolls polls = new SharedPolls(() -> now);

    private static StoredRecord record(IdempotencyKey key, RecordState state) {
        return new StoredRecord(key, state, new byte[32], 7, 1, STORE_NOW.minusSeconds(1),
                state == RecordState.IN_PROGRESS ? STORE_NOW.plusSeconds(30) : null, STORE_NOW.plusSeconds(3600),
                state == RecordState.COMPLETED ? new byte[] {'S'} : null, null);
    }

    private static ClaimResult won(IdempotencyKey key) {
        return ClaimResult.acquired(record(key, RecordState.IN_PROGRESS), STORE_NOW);
    }

    @Test
    void oneCallerIssuesTheClaimAndTheOthersReadItsAnswerAsTheRecordItFound() throws Exception {
        SharedPolls.Ticket issuer = polls.join(KEY);
        SharedPolls.Ticket waiter = polls.join(KEY);
        SharedPolls.Ticket otherKey = polls.join(IdempotencyKey.of("tenant", "charge", "k-2"));
        assertThat(issuer.issuer()).isTrue();
        assertThat(waiter.issuer()).isFalse();
        assertThat(otherKey.issuer()).isTrue();
        assertThat(waiter.answered()).isFalse();

        List<ClaimResult> called = new ArrayList<>();
        assertThat(waiter.whenAnswered((value, failure) -> called.add(value))).isTrue();
        ClaimResult claim = won(KEY);
        issuer.answer(claim);
        now += 3 * MS;

        assertThat(waiter.answered()).isTrue();
        assertThat(called).containsExactly(claim);
        assertThat(waiter.whenAnswered((value, failure) -> called.add(value))).isFalse();
        assertThat(waiter.answer()).isSameAs(claim);
        assertThat(waiter.failure()).isNull();
        assertThat(issuer.await()).isSameAs(claim);
        // The key the issuer won is, to the waiter, in progress; its store time moved on by the answer's age.
        ClaimResult seen = waiter.await();
        assertThat(seen.claimed()).isFalse();
        assertThat(seen.status()).isEqualTo(ClaimResult.Status.EXISTING);
        assertThat(seen.record()).isSameAs(claim.record());
        assertThat(seen.storeTime()).isEqualTo(STORE_NOW.plusMillis(3));
    }

    @Test
    void aBlockedWaiterIsWokenByTheAnswer() throws Exception {
        SharedPolls.Ticket issuer = polls.join(KEY);
        SharedPolls.Ticket waiter = polls.join(KEY);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1);
            Future<ClaimResult> waited = thread.submit(() -> {
                started.countDown();
                return waiter.await();
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            issuer.answer(won(KEY));
            assertThat(waited.get(10, TimeUnit.SECONDS).status()).isEqualTo(ClaimResult.Status.EXISTING);
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void anAnswerIsReusedForThePollIntervalWhichDoublesWhileTheKeyStaysInProgress() {
        SharedPolls.Ticket first = polls.join(KEY);
        first.answer(won(KEY));
        now += PollSchedule.FIRST.toNanos() - 1;
        assertThat(polls.join(KEY).poll).isSameAs(first.poll);
        now += 1;
        SharedPolls.Ticket second = polls.join(KEY);
        assertThat(second.issuer()).isTrue();
        assertThat(second.poll.streak).isEqualTo(1);
        second.answer(ClaimResult.existing(record(KEY, RecordState.IN_PROGRESS), STORE_NOW));
        now += 2 * PollSchedule.FIRST.toNanos() - 1;
        assertThat(polls.join(KEY).issuer()).isFalse();
        now += 1;
        SharedPolls.Ticket third = polls.join(KEY);
        assertThat(third.issuer()).isTrue();
        assertThat(third.poll.streak).isEqualTo(2);

        // A key found completed ends the streak: the next answer is reused for the first interval only.
        third.answer(ClaimResult.existing(record(KEY, RecordState.COMPLETED), STORE_NOW));
        now += 4 * PollSchedule.FIRST.toNanos();
        SharedPolls.Ticket fourth = polls.join(KEY);
        assertThat(fourth.poll.streak).isZero();
        fourth.answer(ClaimResult.existing(record(KEY, RecordState.COMPLETED), STORE_NOW));
        now += PollSchedule.FIRST.toNanos();
        assertThat(polls.join(KEY).issuer()).isTrue();
    }

    @Test
    void aFailedClaimReachesEveryWaiterAndIsNotReused() {
        SharedPolls.Ticket issuer = polls.join(KEY);
        SharedPolls.Ticket waiter = polls.join(KEY);
        List<Throwable> called = new ArrayList<>();
        assertThat(waiter.whenAnswered((value, failure) -> called.add(failure))).isTrue();
        StoreUnavailableException down = new StoreUnavailableException("connection refused", null);
        issuer.fail(down);

        assertThat(called).containsExactly(down);
        assertThat(waiter.answered()).isTrue();
        assertThat(waiter.failure()).isSameAs(down);
        assertThat(waiter.answer()).isNull();
        assertThatThrownBy(waiter::await).isSameAs(down);
        // The next caller claims again at once.
        assertThat(polls.join(KEY).issuer()).isTrue();
    }

    @Test
    void aCheckedFailureIsRaisedAsARetryableStoreFailureAndAnErrorAsItself() {
        SharedPolls.Ticket checked = polls.join(KEY);
        SharedPolls.Ticket waiter = polls.join(KEY);
        checked.fail(new IOException("reset by peer"));
        assertThatThrownBy(waiter::await).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("reset by peer").hasCauseInstanceOf(IOException.class)
                .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());

        SharedPolls.Ticket error = polls.join(KEY);
        SharedPolls.Ticket errorWaiter = polls.join(KEY);
        AssertionError fatal = new AssertionError("broken");
        error.fail(fatal);
        assertThatThrownBy(errorWaiter::await).isSameAs(fatal);
    }

    @Test
    void forgetDropsAnAnswerButNotAClaimInFlight() {
        SharedPolls.Ticket inFlight = polls.join(KEY);
        polls.forget(KEY);
        assertThat(polls.join(KEY).poll).isSameAs(inFlight.poll);
        inFlight.answer(won(KEY));
        polls.forget(KEY);
        assertThat(polls.size()).isZero();
        SharedPolls.Ticket next = polls.join(KEY);
        assertThat(next.issuer()).isTrue();
        assertThat(next.poll.streak).isZero();
    }

    @Test
    void everyFewHundredPollsAnswersOlderThanTwiceTheLongestIntervalAreDropped() {
        long keep = 2 * PollSchedule.MAX.toNanos();
        IdempotencyKey old = IdempotencyKey.of("t", "op", "old");
        IdempotencyKey edge = IdempotencyKey.of("t", "op", "edge");
        IdempotencyKey young = IdempotencyKey.of("t", "op", "young");
        polls.join(old).answer(won(old));
        now += MS;
        polls.join(edge).answer(won(edge));
        now += keep;
        polls.join(young).answer(won(young));
        for (int i = 4; i < 256; i++) {
            polls.join(IdempotencyKey.of("t", "op", "filler-" + i));
        }
        assertThat(polls.size()).isEqualTo(255);
        // The 256th claim sweeps: only the answer more than twice the longest interval old goes.
        polls.join(IdempotencyKey.of("t", "op", "sweeper"));
        assertThat(polls.size()).isEqualTo(255);
        assertThat(polls.join(young).issuer()).isFalse();
    }
}
