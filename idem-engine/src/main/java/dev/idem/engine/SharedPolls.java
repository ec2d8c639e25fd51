package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Ticker;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * One claim of a key, in flight or answered. The answer is kept here, not in a stage: a blocking
     * waiter waits for it on this object's monitor, an asynchronous one leaves a callback, and the
     * issuer of a poll no one else joins makes nothing more.
     */
    static final class Poll {
        /** How many polls before this one found the key in progress, one after another. */
        final int streak;
        /**
         * The ticker when the poll began, before its claim was sent: a near-cache entry made from
         * its answer is counted from here, so the answer's time in transit cannot keep it too long.
         */
        final long sentAt;
        private volatile long answeredAt;
        // Written before answered is set, read after it is seen set.
        private ClaimResult result;
        private Throwable failure;
        private volatile boolean answered;
        // Guarded by this: whether a caller issues this poll's claim, and asynchronous waiters of its answer.
        private boolean issued;
        private List<StorePort.Answer<ClaimResult>> callbacks;

        Poll(int streak, long sentAt) {
            this.streak = streak;
            this.sentAt = sentAt;
        }

        /** Whether the calling caller issues this poll's claim: true for the first to ask only. */
        synchronized boolean takeIssue() {
            if (issued) {
                return false;
            }
            issued = true;
            return true;
        }

        boolean answered() {
            return answered;
        }

        boolean foundInProgress() {
            return answered && result != null && result.record().state() == RecordState.IN_PROGRESS;
        }

        private void complete(ClaimResult claim, Throwable failed, long at) {
            List<StorePort.Answer<ClaimResult>> waiting;
            synchronized (this) {
                result = claim;
                failure = failed;
                answeredAt = at;
                answered = true;
                waiting = callbacks;
                callbacks = null;
                notifyAll();
            }
            if (waiting != null) {
                for (StorePort.Answer<ClaimResult> then : waiting) {
                    LanedPort.answer(then, claim, failed);
                }
            }
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

        /** Whether the poll was answered (or failed). */
        boolean answered() {
            return poll.answered();
        }

        /** The issuer's answer, once {@link #answered()}; null if the claim failed. */
        ClaimResult answer() {
            return poll.result;
        }

        /** The claim's failure, once {@link #answered()}; null if it was answered. */
        Throwable failure() {
            return poll.failure;
        }

        /**
         * Waits on this thread until the issuer answered, and returns the answer as this caller
         * {@link #seen sees} it, or throws the claim's failure.
         *
         * @throws InterruptedException if the wait was interrupted (nothing is held)
         */
        ClaimResult await() throws InterruptedException {
            synchronized (poll) {
                while (!poll.answered) {
                    poll.wait();
                }
            }
            Throwable failed = poll.failure;
            if (failed == null) {
                return seen(poll.result);
            }
            if (failed instanceof Error) {
                throw (Error) failed;
            }
            throw failed instanceof RuntimeException ? (RuntimeException) failed
                    : new StoreUnavailableException("the claim of " + key + " failed: " + failed, failed, true);
        }

        /**
         * Hands the issuer's answer (or the claim's failure) to {@code then} once it comes, on the
         * thread that gives it; false, and nothing is handed, if it came already.
         */
        boolean whenAnswered(StorePort.Answer<ClaimResult> then) {
            synchronized (poll) {
                if (poll.answered) {
                    return false;
                }
                if (poll.callbacks == null) {
                    poll.callbacks = new ArrayList<>(2);
                }
                poll.callbacks.add(then);
                return true;
            }
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
            poll.complete(result, null, polls.ticker.read());
        }

        void fail(Throwable failure) {
            polls.polls.remove(key, poll);
            poll.complete(null, failure, polls.ticker.read());
        }
    }

    /**
     * This caller's part in the key's current poll: the one in flight, the last answer while it
     * is fresh, or a new poll, which the first caller to join it issues.
     */
    Ticket join(IdempotencyKey key) {
        Poll poll = polls.compute(key, (k, last) -> last != null && (!last.answered() || fresh(last)) ? last
                : new Poll(last != null && last.foundInProgress() ? last.streak + 1 : 0, ticker.read()));
        boolean issuer = poll.takeIssue();
        if (issuer && created.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep();
        }
        return new Ticket(this, key, poll, issuer);
    }

    /**
     * Drops the key's last answer, so the next waiter claims at once: called when this engine's
     * own worker ended the key, which its waiters would otherwise learn an interval late.
     */
    void forget(IdempotencyKey key) {
        polls.computeIfPresent(key, (k, last) -> last.answered() ? null : last);
    }

    /** Keys with a poll in flight or a recent answer, for tests. */
    int size() {
        return polls.size();
    }

    /**
     * Whether the answer is younger than its key's poll interval. A failed poll is never looked at
     * here: {@link Ticket#fail} takes it out of the map before it is answered.
     */
    private boolean fresh(Poll poll) {
        return ticker.read() - poll.answeredAt < PollSchedule.intervalNanos(poll.streak);
    }

    private void sweep() {
        long now = ticker.read();
        polls.forEach((key, poll) -> {
            if (poll.answered() && now - poll.answeredAt > 2 * PollSchedule.MAX.toNanos()) {
                polls.remove(key, poll);
            }
        });
    }
}
