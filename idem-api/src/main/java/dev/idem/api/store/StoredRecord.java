package dev.idem.api.store;

import dev.idem.api.IdempotencyKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
    private final Instant createdAt;
    private final byte[] journal;

    /**
     * Creates a snapshot.
     *
     * @param createdAt when the key's record was first created in its current life (the
     *     claim that found it absent or expired, attempt 1); kept by every later write
     *     until the record expires
     * @param leaseExpiresAt the lease deadline; null unless {@code state} is IN_PROGRESS
     * @param outcome the stored outcome; null unless {@code state} is COMPLETED
     * @param journal the step journal saved by {@link IdempotencyStore#checkpoint}; null if
     *     none was saved, and always null for a COMPLETED record
     * @param key the record's key
     * @param state the record's state
     * @param fingerprint the request fingerprint the key was first claimed with
     * @param fencingToken the token of the latest claim
     * @param attempt how many times the key has started executing, at least 1
     * @param expiresAt when the record stops existing
     */
    public StoredRecord(IdempotencyKey key, RecordState state, byte[] fingerprint, long fencingToken,
            int attempt, Instant createdAt, @Nullable Instant leaseExpiresAt, Instant expiresAt, byte @Nullable [] outcome,
            byte @Nullable [] journal) {
        this.key = Objects.requireNonNull(key, "key");
        this.state = Objects.requireNonNull(state, "state");
        this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
        this.fencingToken = fencingToken;
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1 but was " + attempt);
        }
        this.attempt = attempt;
        this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
        this.leaseExpiresAt = leaseExpiresAt;
        this.expiresAt = Objects.requireNonNull(expiresAt, "expiresAt");
        this.outcome = outcome;
        this.journal = journal;
        if (state == RecordState.COMPLETED && outcome == null) {
            throw new IllegalArgumentException("a COMPLETED record needs an outcome");
        }
        if (state == RecordState.COMPLETED && journal != null) {
            throw new IllegalArgumentException("a COMPLETED record has no journal");
        }
        if (state == RecordState.IN_PROGRESS && leaseExpiresAt == null) {
            throw new IllegalArgumentException("an IN_PROGRESS record needs a lease deadline");
        }
    }

    /**
     * The record's key.
     *
     * @return the record's key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * The record's state.
     *
     * @return the record's state
     */
    public RecordState state() {
        return state;
    }

    /**
     * The request fingerprint the key was first claimed with.
     *
     * @return the request fingerprint the key was first claimed with
     */
    public byte[] fingerprint() {
        return fingerprint;
    }

    /**
     * The fencing token of the latest claim.
     *
     * @return the fencing token of the latest claim
     */
    public long fencingToken() {
        return fencingToken;
    }

    /**
     * How many times this key has started executing (1 for the first claim).
     *
     * @return how many times this key has started executing (1 for the first claim)
     */
    public int attempt() {
        return attempt;
    }

    /**
     * The lease deadline while IN_PROGRESS; null otherwise.
     *
     * @return the lease deadline while IN_PROGRESS, otherwise null
     */
    public @Nullable Instant leaseExpiresAt() {
        return leaseExpiresAt;
    }

    /**
     * When the record stops existing, whatever its state.
     *
     * @return when the record stops existing, whatever its state
     */
    public Instant expiresAt() {
        return expiresAt;
    }

    /**
     * The stored outcome of a COMPLETED record; null otherwise.
     *
     * @return the stored outcome of a COMPLETED record, otherwise null
     */
    public byte @Nullable [] outcome() {
        return outcome;
    }

    /**
     * When the key's record was first created in its current life: the claim with attempt 1.
     * Release, takeover, extension and completion keep it, so {@code storeTime - createdAt}
     * at a replay is how long after the first execution the duplicate arrived.
     *
     * @return when the key's record was first created in its current life
     */
    public Instant createdAt() {
        return createdAt;
    }

    /**
     * The step journal last saved by {@link IdempotencyStore#checkpoint}; null if none (always for COMPLETED).
     *
     * @return the step journal last saved by {@link IdempotencyStore#checkpoint}, or null
     */
    public byte @Nullable [] journal() {
        return journal;
    }

    /**
     * Whether {@code other} equals this record's fingerprint.
     *
     * @param other the other
     * @return whether {@code other} equals this record's fingerprint
     */
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
                && createdAt.equals(r.createdAt) && Objects.equals(leaseExpiresAt, r.leaseExpiresAt)
                && expiresAt.equals(r.expiresAt) && Arrays.equals(outcome, r.outcome)
                && Arrays.equals(journal, r.journal);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, state, fencingToken, attempt);
    }

    @Override
    public String toString() {
        return "StoredRecord[" + key + ", " + state + ", attempt=" + attempt + ", token="
                + Long.toHexString(fencingToken) + ", lease=" + leaseExpiresAt + ", expires=" + expiresAt
                + ", created=" + createdAt + ", outcome=" + (outcome == null ? "none" : outcome.length + " bytes")
                + ", journal=" + (journal == null ? "none" : journal.length + " bytes") + "]";
    }
}
