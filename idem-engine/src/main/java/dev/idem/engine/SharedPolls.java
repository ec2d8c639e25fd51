package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The claims of an engine's waiting duplicates, shared per key: however many callers of one key
 * wait in this engine (blocking or asynchronous), at most one claim of theirs is in the store at
 * a time, and after it a new one is sent only once its answer is older than the key's poll
 * interval ({@link PollSchedule}: 10 ms, doubling up to 500 ms while the key stays in progress), so a hot key costs the store at most about two claims a second per engine, and its
 * lease renewals never queue behind a crowd of claims for it.
 *
 * <p>A caller either {@linkplain Ticket#issuer() issues} the claim itself (with its own
 * fingerprint, token, lease and TTL, so only it can win the key) or reads the issuer's answer,
 * {@linkplain Ticket#seen seen as the record it found}: a key the issuer won is, to everyone
 * else, in progress. Failures are not kept: the next caller claims again. Only callers whose
 * policy waits share; a fail-fast caller always claims for itself.
 */
final class SharedPolls {
    private static final int SWEEP_EVERY = 256;

    private final Ticker ticker;
    private final ConcurrentHashMap<IdempotencyKey, Poll> polls = new ConcurrentHashMap<>();
    private final AtomicInteger created = new AtomicInteger();

    SharedPolls(Ticker ticker) {
        this.ticker = ticker;
    }

    /** One claim of a key, in flight or answered. */
    static final class Poll {
        final CompletableFuture<ClaimResult> answer = new CompletableFuture<>();
        /** How many polls before this one found the key in progress, one after another. */
        final int streak;
        /**
         * The ticker when the poll began, before its claim was sent: a near-cache entry made from
         * its answer is counted from here, so the answer's time in transit cannot keep it too long.
         */
        final long sentAt;
        private volatile long answeredAt;

        Poll(int streak, long sentAt) {
            this.streak = streak;
            this.sentAt = sentAt;
        }

        boolean foundInProgress() {
            ClaimResult r = answer.getNow(null);
            return r != null && r.record().state() == RecordState.IN_PROGRESS;
        }
    }

    /** A caller's part in one poll. */
    static final class Ticket {
        private final SharedPolls polls;
        private final IdempotencyKey key;
        final Poll poll;
        private final boolean issuer;

        Ticket(SharedPolls polls, IdempotencyKey key, Poll poll, boolean issuer) {
            this.polls = polls;
            this.key = key;
            this.poll = poll;
            this.issuer = issuer;
        }

        /** Whether this caller must send the claim and then {@link #answer} or {@link #fail} it. */
        boolean issuer() {
            return issuer;
        }

        /** The claim's answer as the issuer got it; see {@link #seen} for everyone else. */
        CompletableFuture<ClaimResult> answer() {
            return poll.answer;
        }

        /**
         * The answer as this caller sees it: the issuer's own, or for anyone else the record the
         * claim found (a key the issuer won is in progress), its store time moved on by the
         * answer's age on the engine's ticker, so the lease left is not overstated.
         */
        ClaimResult seen(ClaimResult answer) {
            if (issuer) {
                return answer;
            }
            long age = Math.max(0, polls.ticker.read() - poll.answeredAt);
            return ClaimResult.existing(answer.record(), answer.storeTime().plusNanos(age));
        }

        void answer(ClaimResult result) {
            poll.answeredAt = polls.ticker.read();
            poll.answer.complete(result);
        }

        void fail(Throwable failure) {
            polls.polls.remove(key, poll);
            poll.answer.completeExceptionally(failure);
        }
    }

    /**
     * This caller's part in the key's current poll: the one in flight, the last answer while it
     * is fresh, or a new poll this caller issues.
     */
    Ticket join(IdempotencyKey key) {
        Ticket[] ticket = new Ticket[1];
        polls.compute(key, (k, last) -> {
            if (last != null && (!last.answer.isDone() || fresh(last))) {
                ticket[0] = new Ticket(this, k, last, false);
                return last;
            }
            Poll next = new Poll(last != null && last.foundInProgress() ? last.streak + 1 : 0,
                    ticker.read());
            ticket[0] = new Ticket(this, k, next, true);
            return next;
        });
        if (ticket[0].issuer && created.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep();
        }
        return ticket[0];
    }

    /**
     * Drops the key's last answer, so the next waiter claims at once: called when this engine's
     * own worker ended the key, which its waiters would otherwise learn an interval late.
     */
    void forget(IdempotencyKey key) {
        polls.computeIfPresent(key, (k, last) -> last.answer.isDone() ? null : last);
    }

    /** Keys with a poll in flight or a recent answer, for tests. */
    int size() {
        return polls.size();
    }

    private boolean fresh(Poll poll) {
        if (poll.answer.isCompletedExceptionally()) {
            return false;
        }
        return ticker.read() - poll.answeredAt < PollSchedule.intervalNanos(poll.streak);
    }

    private void sweep() {
        long now = ticker.read();
        polls.forEach((key, poll) -> {
            if (poll.answer.isDone() && now - poll.answeredAt > 2 * PollSchedule.MAX.toNanos()) {
                polls.remove(key, poll);
            }
        });
    }
}
