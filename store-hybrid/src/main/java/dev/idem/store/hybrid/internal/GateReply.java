package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the claim script found or did: the action for the Java side, the gate's clock, the
 * nonce of the record the script saw (for a later compare-and-set), and that record.
 *
 * @param <A> the script's actions
 * @param action what the script tells the Java side to do
 * @param now the gate's clock when the script ran
 * @param nonce the nonce of the record the script saw or wrote, empty if none
 * @param state the record's state, or null if there was no record
 * @param fingerprint the record's fingerprint
 * @param token the record's token
 * @param attempt the record's attempt
 * @param created the record's creation time, ms
 * @param lease the lease deadline, ms, or -1 unless IN_PROGRESS
 * @param expires the expiry, ms
 * @param outcome the outcome of a completed record, if the reply carries it
 * @param outcomeKept whether the gate keeps a completed record's outcome
 */
record GateReply<A extends Enum<A> & GateLetter>(A action, long now, String nonce,
        @Nullable GateState state, byte @Nullable [] fingerprint, long token,
        int attempt, long created, long lease, long expires, byte @Nullable [] outcome, boolean outcomeKept) {

    /** The record as the gate holds it, on the gate's clock (state I or C). */
    StoredRecord toRecord(IdempotencyKey key) {
        RecordState s = java.util.Objects.requireNonNull(state, "state").recordState();
        return new StoredRecord(key, s, java.util.Objects.requireNonNull(fingerprint, "fingerprint"), token, attempt,
                Instant.ofEpochMilli(created), s == RecordState.IN_PROGRESS ? Instant.ofEpochMilli(lease) : null,
                Instant.ofEpochMilli(expires), s == RecordState.COMPLETED ? outcome : null, null);
    }

    /** The gate's clock as an instant. */
    Instant nowInstant() {
        return Instant.ofEpochMilli(now);
    }
}
