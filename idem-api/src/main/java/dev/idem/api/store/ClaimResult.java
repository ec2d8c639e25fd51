package dev.idem.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What one {@link IdempotencyStore#claim claim} found or did, with the record as it is
 * after the claim, so the caller never needs a second read.
 */
public final class ClaimResult {
    /** How the claim ended. */
    public enum Status {
        /** The key was absent, expired or released; the caller now holds it. */
        ACQUIRED,
        /** The key was IN_PROGRESS under a lapsed lease; the caller took it over. */
        TAKEN_OVER,
        /** Someone else's record stands (completed, live lease, or another fingerprint). */
        EXISTING
    }

    private final Status status;
    private final StoredRecord record;
    private final Instant storeTime;

    /**
     * Creates a result.
     *
     * @param record the record after the claim: the caller's own for ACQUIRED and TAKEN_OVER
     * @param storeTime the store's clock at the claim, so callers can turn the record's
     *     instants into durations without depending on their own clock
     * @param status how the claim ended
     */
    public ClaimResult(Status status, StoredRecord record, Instant storeTime) {
        this.status = Objects.requireNonNull(status, "status");
        this.record = Objects.requireNonNull(record, "record");
        this.storeTime = Objects.requireNonNull(storeTime, "storeTime");
    }

    /**
     * Creates an ACQUIRED result.
     *
     * @param record the caller's own record after the claim
     * @param storeTime the store's clock at the claim
     * @return the claim result
     */
    public static ClaimResult acquired(StoredRecord record, Instant storeTime) {
        return new ClaimResult(Status.ACQUIRED, record, storeTime);
    }

    /**
     * Creates a TAKEN_OVER result.
     *
     * @param record the caller's own record after the claim
     * @param storeTime the store's clock at the claim
     * @return the claim result
     */
    public static ClaimResult takenOver(StoredRecord record, Instant storeTime) {
        return new ClaimResult(Status.TAKEN_OVER, record, storeTime);
    }

    /**
     * Creates an EXISTING result.
     *
     * @param record the record that holds the key
     * @param storeTime the store's clock at the claim
     * @return the claim result
     */
    public static ClaimResult existing(StoredRecord record, Instant storeTime) {
        return new ClaimResult(Status.EXISTING, record, storeTime);
    }

    /**
     * How the claim ended.
     *
     * @return how the claim ended
     */
    public Status status() {
        return status;
    }

    /**
     * Whether the caller now holds the key (ACQUIRED or TAKEN_OVER).
     *
     * @return whether the caller now holds the key (ACQUIRED or TAKEN_OVER)
     */
    public boolean claimed() {
        return status != Status.EXISTING;
    }

    /**
     * The record after the claim.
     *
     * @return the record after the claim
     */
    public StoredRecord record() {
        return record;
    }

    /**
     * The store's clock when the claim was decided.
     *
     * @return the store's clock when the claim was decided
     */
    public Instant storeTime() {
        return storeTime;
    }

    @Override
    public String toString() {
        return "ClaimResult[" + status + ", " + record + ", at " + storeTime + "]";
    }
}
