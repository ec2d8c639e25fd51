package dev.idem.store.tck.mutants;

/**
 * The deliberate defects a {@link MutantStore} can carry; {@link #NONE} is the correct store.
 * Each is a mistake a real adapter author could make; the race mutants are written the way
 * such an author would (read, yield, write), with no help to the kit.
 */
enum Bug {
    /** The correct store: the kit must pass it. */
    NONE,
    /** claim reads, decides, yields, then writes blindly: two claimers can both win. */
    NON_ATOMIC_CLAIM,
    /** claim decides and writes atomically, but an EXISTING reply is read again afterwards (a second query). */
    EXISTING_FROM_SECOND_READ,
    /**
     * A claim is visible to other claims at once but to find only after a yield (a cache that
     * answers duplicates in front of a database that reads go to and the claim reaches one round
     * trip later): a read that starts after a duplicate was told "in progress" can say "no record".
     */
    FIND_LAGS_CLAIM,
    /** complete checks the token, yields, then writes blindly: a stale holder can overwrite a takeover. */
    NON_ATOMIC_COMPLETE,
    /** release checks the token, yields, then writes blindly. */
    NON_ATOMIC_RELEASE,
    /** extendLease checks the token, yields, then writes blindly: a stale holder can revive its lease. */
    NON_ATOMIC_EXTEND,
    /** checkpoint checks the token, yields, then writes blindly: a stale journal can overwrite a takeover. */
    NON_ATOMIC_CHECKPOINT,
    /** complete accepts any token once the lease has lapsed. */
    UNFENCED_COMPLETE,
    /** release accepts any token once the lease has lapsed. */
    UNFENCED_RELEASE,
    /** checkpoint accepts any token once the lease has lapsed: a stranger writes the holder's journal. */
    UNFENCED_CHECKPOINT,
    /** A lease lapses only after its deadline ({@code <} where the SPI says {@code <=}). */
    LEASE_OFF_BY_ONE,
    /** A record expires only after expiresAt ({@code <} where the SPI says {@code <=}). */
    EXPIRY_OFF_BY_ONE,
    /** checkpoint alone judges expiry with {@code <}: it accepts a journal at {@code now == expiresAt}. */
    CHECKPOINT_AT_EXPIRY,
    /** Lease and expiry deadlines are cut to whole seconds: leases end up to 999 ms early. */
    WHOLE_SECOND_DEADLINES,
    /** claim sets {@code expiresAt = now + ttl} even when the lease is longer: the record dies under its lease. */
    RECORD_DIES_UNDER_LEASE,
    /** extendLease moves the lease but leaves expiresAt, so an extended record can expire under its holder. */
    EXTEND_KEEPS_EXPIRY,
    /** extendLease sets expiresAt to the new deadline even when earlier: a short extension shortens the life. */
    EXTEND_SHORTENS_EXPIRY,
    /** complete flips the state but stores an empty outcome. */
    COMPLETE_LOSES_OUTCOME,
    /** purgeExpired also deletes unexpired IN_PROGRESS records whose lease lapsed. */
    PURGE_LAPSED_LEASES,
    /** purgeExpired also deletes unexpired RELEASED records (their attempt count and journal with them). */
    PURGE_RELEASED,
    /** Outcomes are cached by request fingerprint, so a replay can return another key's outcome. */
    WRONG_KEY_OUTCOME,
    /** The scope is left out of the storage key. */
    SCOPE_IGNORED,
    /**
     * The scope is compared as a case-insensitive, space-padding collation compares it (lower case,
     * spaces at either end dropped): two tenants whose names differ only so share records.
     */
    SCOPE_FOLDED,
    /** The operation is left out of the storage key. */
    OPERATION_IGNORED,
    /** The blocking form is right; the non-blocking form's complete accepts any token once the lease has lapsed. */
    NON_BLOCKING_UNFENCED_COMPLETE,
    /** The blocking form is right; the non-blocking form keeps records of its own (the other form never sees them). */
    NON_BLOCKING_OWN_RECORDS,
    /**
     * The non-blocking form runs the blocking call on the caller's thread and returns the stage
     * completed: every right answer, but each call parks its caller (an event loop) for the round trip.
     */
    NON_BLOCKING_ON_THE_CALLERS_THREAD,
    /** isBackedBy answers true for any store: the engine would run another store's transactional work on it. */
    BACKED_BY_ANY_STORE,
    /** complete stores an outcome over maxOutcomeBytes cut to the limit instead of refusing it. */
    OVERSIZED_OUTCOME_CUT,
    /** Declares 16 MiB but keeps only the first 4 MiB of a larger outcome or journal. */
    CUT_ABOVE_FOUR_MIB,
    /** A claim of a released key keeps the released record's expiresAt: the record can die under the new lease. */
    RECLAIM_KEEPS_EXPIRY,
    /** A takeover keeps the lapsed record's expiresAt: the record can die under the taker's lease. */
    TAKEOVER_KEEPS_EXPIRY
}
