package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import java.time.Duration;
import java.time.Instant;

/** What the work knows about the execution it is part of. */
public interface ExecutionContext {

    /** The key being executed. */
    IdempotencyKey key();

    /**
     * The fencing token of this execution's claim: unique per claim, and what the store
     * checks before accepting this execution's outcome.
     */
    long fencingToken();

    /** How many times this key has started executing, this time included (1 the first time). */
    int attempt();

    /** When the lease lapses, in the store's clock; after it a duplicate may take over. */
    Instant leaseDeadline();

    /**
     * A stable, opaque key derived from scope, operation and client key (URL-safe, 43
     * characters), the same on every attempt, to hand to downstream APIs that deduplicate
     * (a payment provider's own idempotency key).
     */
    String downstreamKey();

    /**
     * Extends the lease for long work, so no duplicate takes over while it still runs.
     *
     * @return the new lease deadline
     * @throws dev.idem.api.LeaseLostException if another worker already took over
     */
    Instant extendLease(Duration lease);
}
