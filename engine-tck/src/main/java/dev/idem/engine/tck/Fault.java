package dev.idem.engine.tck;

/** What happens to the one store call a scripted run fails (see {@link FaultInjectionContract}). */
enum Fault {
    /** The call fails with a retryable {@code StoreUnavailableException}; nothing reached the store. */
    TRANSIENT,
    /** The call fails with a non-retryable {@code StoreUnavailableException}; nothing reached the store. */
    PERMANENT,
    /** The call reaches the store, then the worker gets a retryable timeout, as if the reply were lost. */
    TIMEOUT_LANDED,
    /** The worker's lease lapses on every clock just before the call, which then goes through. */
    LAPSE_BEFORE,
    /** As {@link #LAPSE_BEFORE}, and a competitor takes the key over and finishes before the call. */
    TAKEOVER_BEFORE,
    /** The call goes through, then the lease lapses and a competitor takes the key over and finishes. */
    TAKEOVER_AFTER,
    /** The worker crashes instead of making the call: its connection is cut first, so it releases nothing. */
    CRASH_BEFORE,
    /** The call reaches the store, then the worker crashes before it reads the reply (connection cut first). */
    CRASH_AFTER
}
