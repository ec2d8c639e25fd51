package dev.idem.store.tck.mutants;

/** The deliberate defects a {@link MutantStore} can carry; {@link #NONE} is the correct store. */
enum Bug {
    /** The correct store: the kit must pass it. */
    NONE,
    /** claim reads, decides, then writes blindly: two claimers can both win. */
    NON_ATOMIC_CLAIM,
    /** complete checks the token, then writes blindly: a stale holder can overwrite a takeover. */
    NON_ATOMIC_COMPLETE,
    /** release checks the token, then writes blindly. */
    NON_ATOMIC_RELEASE,
    /** extendLease checks the token, then writes blindly: a stale holder can revive its lease over a takeover. */
    NON_ATOMIC_EXTEND,
    /** complete accepts any token once the lease has lapsed. */
    UNFENCED_COMPLETE,
    /** release accepts any token once the lease has lapsed. */
    UNFENCED_RELEASE,
    /** A lease lapses only after its deadline ({@code <} where the SPI says {@code <=}). */
    LEASE_OFF_BY_ONE,
    /** A record expires only after expiresAt ({@code <} where the SPI says {@code <=}). */
    EXPIRY_OFF_BY_ONE,
    /** extendLease moves the lease but leaves expiresAt, so an extended record can expire under its holder. */
    EXTEND_KEEPS_EXPIRY,
    /** complete flips the state but stores an empty outcome. */
    COMPLETE_LOSES_OUTCOME,
    /** Outcomes are cached by request fingerprint, so a replay can return another key's outcome. */
    WRONG_KEY_OUTCOME,
    /** The scope is left out of the storage key. */
    SCOPE_IGNORED,
    /** The operation is left out of the storage key. */
    OPERATION_IGNORED
}
