package dev.idem.api.store;

import dev.idem.api.IdempotencyKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * An immutable snapshot of one record as the store saw it. Byte arrays are neither copied
 * on the way in nor on the way out: callers must not mutate them.
 *
 * <p>Instants are in the store's clock (the database server's, where the store uses it),
 * with millisecond precision.
 */
public final class StoredRecord {
    private final IdempotencyKey key;
    private final RecordState state;
    private final byte[] fingerprint;
    private final long fencingToken;
    private final int attempt;
    private final Instant leaseExpiresAt;
    private final Instant expiresAt;
    private final byte[] outcome;

    /**
     * Creates a snapshot.
     *
     * @param leaseExpiresAt the lease deadline; null unless {@code state} is IN_PROGRESS
     * @param outcome the stored outcome; null unless {@code state} is COMPLETED
     */
    public StoredRecord(IdempotencyKey key, RecordState state, byte[] fingerprint, long fencingToken,
            int attempt, Instant leaseExpiresAt, Instant expiresAt, byte[] outcome) {
        this.key = Objects.requireNonNull(key, "key");
        this.state = Objects.requireNonNull(state, "state");
        this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
        this.fencingToken = fencingToken;
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1 but was " + attempt);
        }
        this.attempt = attempt;
        this.leaseExpiresAt = leaseExpiresAt;
        this.expiresAt = Objects.requireNonNull(expiresAt, "expiresAt");
        this.outcome = outcome;
        if (state == RecordState.COMPLETED && outcome == null) {
            throw new IllegalArgumentException("a COMPLETED record needs an outcome");
        }
        if (state == RecordState.IN_PROGRESS && leaseExpiresAt == null) {
            throw new IllegalArgumentException("an IN_PROGRESS record needs a lease deadline");
        }
    }

    /** The record's key. */
    public IdempotencyKey key() {
        return key;
    }

    /** The record's state. */
    public RecordState state() {
        return state;
    }

    /** The request fingerprint the key was first claimed with. */
    public byte[] fingerprint() {
        return fingerprint;
    }

    /** The fencing token of the latest claim. */
    public long fencingToken() {
        return fencingToken;
    }

    /** How many times this key has started executing (1 for the first claim). */
    public int attempt() {
        return attempt;
    }

    /** The lease deadline while IN_PROGRESS; null otherwise. */
    public Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /** When the record stops existing, whatever its state. */
    public Instant expiresAt() {
        return expiresAt;
    }

    /** The stored outcome of a COMPLETED record; null otherwise. */
    public byte[] outcome() {
        return outcome;
    }

    /** Whether {@code other} equals this record's fingerprint. */
    public boolean hasFingerprint(byte[] other) {
        return Arrays.equals(fingerprint, other);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StoredRecord)) {
            return false;
        }
        StoredRecord r = (StoredRecord) o;
        return fencingToken == r.fencingToken && attempt == r.attempt && key.equals(r.key)
                && state == r.state && Arrays.equals(fingerprint, r.fingerprint)
                && Objects.equals(leaseExpiresAt, r.leaseExpiresAt) && expiresAt.equals(r.expiresAt)
                && Arrays.equals(outcome, r.outcome);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, state, fencingToken, attempt);
    }

    @Override
    public String toString() {
        return "StoredRecord[" + key + ", " + state + ", attempt=" + attempt + ", token="
                + Long.toHexString(fencingToken) + ", lease=" + leaseExpiresAt + ", expires=" + expiresAt
                + ", outcome=" + (outcome == null ? "none" : outcome.length + " bytes") + "]";
    }
}
