package dev.idem.engine;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEvent.Type;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.Arrays;

/**
 * How a claimed key ends, as a value: the write a driver makes next ({@link Write}: complete the
 * record with an outcome, a final failure or the not-stored marker; release it; hand it back), the
 * read that confirms work which completed the record itself ({@link Confirm}), or the caller's
 * {@link Answer} once nothing is left to write. A step's {@code next} turns the store's answer to
 * its write into the following step, without a store: a completion the store refused for good is
 * followed by the marker, every other answer by the caller's.
 *
 * <p>{@link Execution#finish} decides the first step from what the work returned or threw and from
 * the engine's record of its steps; {@link Recorder} encodes the bytes. The blocking driver carries
 * the steps out in a plain loop on the caller's thread, the asynchronous one as stages through its
 * port; both apply each step's event, near-cache entry and warning through
 * {@link Execution#apply(Ending)}, so a key ends and is reported alike whichever way the call went.
 *
 * <p>Once the work has run, an outcome is never dropped silently: one that cannot be written as
 * JSON, is over the engine's limit or is refused by the store for good is replaced by the stored
 * marker, so every caller gets the same {@link OutcomeNotStoredException} and the work does not run
 * again; only a store that stays unavailable leaves the claim in place until its lease lapses (so
 * does a step whose journal write may still land: {@link Answer} with nothing written).
 */
sealed interface Ending<T> {
    /**
     * The lease a key is handed back with: it lapses at once, so the same request takes the key
     * over (with its journal) without waiting, while the record stays IN_PROGRESS with its
     * fingerprint, so another request is still refused.
     */
    Duration HAND_BACK = Duration.ofMillis(1);

    /** The event to emit when a driver reaches this step, or null. */
    default Type event() {
        return null;
    }

    /** The attempt of the claim this ending is of: what its events are noted with. */
    int attempt();

    /**
     * The pause before trying a fenced write again (an ending's completion, a step's checkpoint):
     * 50 ms, 100 ms, ... after a retryable {@link StoreUnavailableException}, while fewer than
     * {@code attempts} tries were made; -1 to stop and answer with {@code failure}.
     *
     * @param tried how many tries failed before this one (0 after the first)
     */
    static long retryPauseMillis(int tried, Throwable failure, int attempts) {
        if (!(failure instanceof StoreUnavailableException) || !((StoreUnavailableException) failure).retryable()
                || tried + 1 >= attempts) {
            return -1;
        }
        return 50L << tried;
    }

    /** A fenced write of the held key. */
    sealed interface Write<T> extends Ending<T> {
        /** Which write. */
        enum Kind {
            /** Complete the record with {@link #outcome()}, tried again while the store is briefly unavailable. */
            COMPLETE,
            /** Release the key: it is free for any request. */
            RELEASE,
            /** Cut the lease to {@link #HAND_BACK}: the same request takes the key over with its journal. */
            HAND_BACK
        }

        Kind kind();

        /** The claim's fencing token. */
        long token();

        /** What {@link Kind#COMPLETE} stores; null for the others. */
        default byte[] outcome() {
            return null;
        }

        /**
         * The step after the store answered this write.
         *
         * @param written whether the token was current (false if {@code failure} is not null)
         * @param failure the write's failure, unwrapped, or null
         * @param sentAt the ticker before the write was first sent: a cached outcome is counted from it
         */
        Ending<T> next(boolean written, Throwable failure, long sentAt);
    }

    /** Store the work's success; {@code value} is what the first caller gets. */
    record Complete<T>(Recorder recorder, long token, int attempt, byte[] fingerprint, byte[] outcome, T value)
            implements Write<T> {
        @Override
        public Kind kind() {
            return Kind.COMPLETE;
        }

        @Override
        public Ending<T> next(boolean written, Throwable failure, long sentAt) {
            if (failure instanceof StoreUnavailableException && ((StoreUnavailableException) failure).retryable()) {
                // The claim is kept, so the lease holds duplicates off while the store recovers.
                return new Answer<>(new Result<>(value, false, false, attempt), null, false, Type.OUTCOME_NOT_STORED,
                        attempt, null, null, 0, warning("the outcome of {0} is returned but not stored ({1}); retries"
                        + " may run the work again once the lease lapses", recorder.key(), failure.getMessage()));
            }
            if (failure instanceof StoreUnavailableException || failure instanceof IllegalArgumentException) {
                // Refused for good, or the store's own size check disagreed with its declared limit.
                return recorder.marker(token, attempt, fingerprint, "the store refused it: " + failure.getMessage(),
                        failure, null);
            }
            if (failure != null) {
                return Answer.thrown(failure);
            }
            if (!written) {
                return Answer.leaseLost(new LeaseLostException(recorder.key(), token), null, attempt);
            }
            return new Answer<>(new Result<>(value, false, true, attempt), null, false, Type.FIRST_EXECUTION, attempt,
                    fingerprint, outcome, sentAt, null);
        }

        @Override
        public String toString() {
            return "Complete[attempt " + attempt + "]";
        }
    }

    /**
     * Store a final failure; the first caller gets {@code answer}, what every retry will get. If
     * {@code rethrown} is not null (an {@link Error} of the work), it is thrown instead, with the
     * answer suppressed.
     */
    record StoreFailure<T>(Recorder recorder, long token, int attempt, byte[] fingerprint, byte[] outcome,
            FinalFailureException answer, Throwable cause, Error rethrown) implements Write<T> {
        @Override
        public Kind kind() {
            return Kind.COMPLETE;
        }

        @Override
        public Ending<T> next(boolean written, Throwable failure, long sentAt) {
            if (failure == null && written) {
                return new Answer<>(null, Answer.rethrown(answer, rethrown), false, Type.FINAL_FAILURE_STORED, attempt,
                        fingerprint, outcome, sentAt, null);
            }
            if (failure == null) {
                LeaseLostException lost = new LeaseLostException(recorder.key(), token);
                lost.initCause(cause);
                return Answer.leaseLost(Answer.rethrown(lost, rethrown), null, attempt);
            }
            if (failure instanceof StoreUnavailableException && ((StoreUnavailableException) failure).retryable()) {
                answer.addSuppressed(failure);
                return new Answer<>(null, Answer.rethrown(answer, rethrown), false, Type.OUTCOME_NOT_STORED, attempt,
                        null, null, 0, null);
            }
            if (failure instanceof StoreUnavailableException || failure instanceof IllegalArgumentException) {
                return recorder.marker(token, attempt, fingerprint, "the store refused the final failure '"
                        + answer.code() + "': " + failure.getMessage(), answer, rethrown);
            }
            return Answer.thrown(failure);
        }

        @Override
        public String toString() {
            return "StoreFailure[" + answer.code() + ", attempt " + attempt + "]";
        }
    }

    /**
     * Store the not-stored marker in place of an outcome that cannot be stored, so the key is not
     * freed and every caller gets the same {@code answer}; {@code reason} is what is logged.
     */
    record StoreMarker<T>(Recorder recorder, long token, int attempt, byte[] fingerprint, byte[] outcome,
            OutcomeNotStoredException answer, String reason, Error rethrown) implements Write<T> {
        @Override
        public Kind kind() {
            return Kind.COMPLETE;
        }

        @Override
        public Type event() {
            return Type.OUTCOME_NOT_STORED;
        }

        @Override
        public Ending<T> next(boolean written, Throwable failure, long sentAt) {
            if (failure instanceof StoreUnavailableException || failure instanceof IllegalArgumentException) {
                answer.addSuppressed(failure);
                return new Answer<>(null, Answer.rethrown(answer, rethrown), false, null, attempt, null, null, 0,
                        warning("the work for {0} ran but neither its outcome nor a marker could be stored; retries"
                        + " may run the work again once the lease lapses", recorder.key()));
            }
            if (failure != null) {
                return Answer.thrown(failure);
            }
            if (written) {
                return new Answer<>(null, Answer.rethrown(answer, rethrown), false, null, attempt, fingerprint, outcome,
                        sentAt, warning("the work for {0} ran but its outcome could not be stored ({1}); a marker was"
                        + " stored instead, so retries get the same error", recorder.key(), reason));
            }
            LeaseLostException lost = new LeaseLostException(recorder.key(), token);
            lost.addSuppressed(answer);
            return Answer.leaseLost(Answer.rethrown(lost, rethrown), null, attempt);
        }

        @Override
        public String toString() {
            return "StoreMarker[attempt " + attempt + "]";
        }
    }

    /**
     * Give the key back unrun or after a transient failure: released, or handed back if its journal
     * may hold steps (a release would let another request claim it, drop the journal and run the
     * finished steps again). What the store says is added to {@code failure}; the caller gets
     * {@code answer}. {@code noted} is noted once the key is given back, or whatever the store said
     * if {@code always}.
     */
    record GiveBack<T>(IdempotencyKey key, boolean handBack, long token, int attempt, Throwable failure,
            Throwable answer, Type noted, boolean always) implements Write<T> {
        @Override
        public Kind kind() {
            return handBack ? Kind.HAND_BACK : Kind.RELEASE;
        }

        @Override
        public Ending<T> next(boolean written, Throwable storeFailure, long sentAt) {
            Type notGiven = always ? noted : null;
            if (storeFailure instanceof Error) {
                return new Answer<>(null, storeFailure, false, notGiven, attempt, null, null, 0, null);
            }
            if (storeFailure != null) {
                failure.addSuppressed(storeFailure);
                return new Answer<>(null, answer, false, notGiven, attempt, null, null, 0, null);
            }
            if (!written) {
                failure.addSuppressed(new LeaseLostException(key, token));
                return Answer.leaseLost(answer, notGiven, attempt);
            }
            return new Answer<>(null, answer, false, noted, attempt, null, null, 0, null);
        }

        @Override
        public String toString() {
            return (handBack ? "HandBack" : "Release") + "[attempt " + attempt + "]";
        }
    }

    /**
     * Read the record that {@link AtomicWork} completed in its own transaction (after the claim
     * sent at {@code claimSent}, a ticker reading) and check that it did; {@code encoded} is what the
     * work last encoded, so its first caller decodes the whole result.
     */
    record Confirm<T>(Recorder recorder, long token, int attempt, byte[] fingerprint, T value, long claimSent,
            Recorder.Encoded encoded) implements Ending<T> {
        /** The step after the read: the record found (or null), or the read's failure. */
        Ending<T> found(StoredRecord now, Throwable failure) {
            if (failure instanceof StoreUnavailableException) {
                return new Answer<>(new Result<>(value, false, false, attempt), null, false, Type.OUTCOME_NOT_STORED,
                        attempt, null, null, 0, warning("could not check that the atomic work completed {0}: {1}",
                        recorder.key(), failure.getMessage()));
            }
            if (failure != null) {
                return Answer.thrown(failure);
            }
            if (now != null && now.fencingToken() == token && now.state() == RecordState.COMPLETED) {
                byte[] whole = encoded != null && Arrays.equals(encoded.stored(), now.outcome()) ? encoded.plain() : null;
                if (whole == null && recorder.untyped()) {
                    try {
                        whole = recorder.open(now.outcome(), fingerprint);
                    } catch (OutcomeUnreadableException e) {
                        return new Answer<>(null, e, false, Type.FIRST_EXECUTION, attempt, fingerprint, now.outcome(),
                                claimSent, recorder.unreadable(e));
                    }
                }
                return new Answer<>(new Result<>(recorder.plain(value, whole), false, true, attempt), null, false,
                        Type.FIRST_EXECUTION, attempt, fingerprint, now.outcome(), claimSent, null);
            }
            if (now != null && now.fencingToken() == token && now.state() == RecordState.IN_PROGRESS) {
                IllegalStateException bug = new IllegalStateException("AtomicWork for " + recorder.key()
                        + " returned without completing the record; it must complete it in its transaction or throw");
                return recorder.marker(token, attempt, fingerprint,
                        "the atomic work returned without completing the record (a programming error)", bug, null);
            }
            return Answer.leaseLost(new LeaseLostException(recorder.key(), token), null, attempt);
        }

        @Override
        public String toString() {
            return "Confirm[attempt " + attempt + "]";
        }
    }

    /**
     * Nothing (more) to write: the caller gets {@code result}, or {@code thrown}. Reached with
     * nothing written (the work lost its own lease, a step's journal write may still land, an
     * asynchronous work's stage was cancelled), it keeps the claim until its lease lapses. A driver
     * that reaches it notes {@link Type#LEASE_LOST} if {@code leaseLost}, then {@code event}, caches
     * {@code cachedOutcome} (stored under {@code cachedFingerprint}, counted from
     * {@code cachedSince}), and logs {@code warning}.
     */
    record Answer<T>(Result<T> result, Throwable thrown, boolean leaseLost, Type event, int attempt,
            byte[] cachedFingerprint, byte[] cachedOutcome, long cachedSince, String warning) implements Ending<T> {

        /** The caller gets {@code thrown}, and nothing else happens. */
        static <T> Answer<T> thrown(Throwable thrown) {
            return new Answer<>(null, thrown, false, null, 0, null, null, 0, null);
        }

        /** The caller gets {@code thrown}, after a write found that another claim holds the key. */
        static <T> Answer<T> leaseLost(Throwable thrown, Type event, int attempt) {
            return new Answer<>(null, thrown, true, event, attempt, null, null, 0, null);
        }

        /** The caller gets {@code thrown}, the claim is kept until its lease lapses, and {@code warning} is logged. */
        static <T> Answer<T> kept(Throwable thrown, String warning) {
            return new Answer<>(null, thrown, false, null, 0, null, null, 0, warning);
        }

        /** {@code answer}, or the work's {@code error} with the answer suppressed. */
        static Throwable rethrown(RuntimeException answer, Error error) {
            if (error == null) {
                return answer;
            }
            error.addSuppressed(answer);
            return error;
        }

        @Override
        public String toString() {
            return "Answer[" + (thrown != null ? thrown.getClass().getSimpleName() : "result")
                    + (event != null ? ", " + event : "") + "]";
        }
    }

    /** A warning naming {@code key} by its digest (keys are never logged in clear). */
    static String warning(String pattern, IdempotencyKey key, Object... more) {
        Object[] args = new Object[more.length + 1];
        args[0] = key.digest();
        System.arraycopy(more, 0, args, 1, more.length);
        return MessageFormat.format(pattern, args);
    }
}
