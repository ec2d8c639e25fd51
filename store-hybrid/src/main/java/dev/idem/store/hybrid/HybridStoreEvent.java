package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import org.jspecify.annotations.Nullable;

/**
 * Something the hybrid store did or met, for metrics and logs. Emitted synchronously on the
 * calling thread; listeners must be quick and must not call the store.
 *
 * @param type what happened
 * @param key the key concerned, or null for events about the gate as a whole (down, up)
 * @param cause the failure behind {@link Type#GATE_FAILED} and {@link Type#GATE_DOWN}, else null
 */
public record HybridStoreEvent(Type type, @Nullable IdempotencyKey key, @Nullable Throwable cause) {

    /** What happened. */
    public enum Type {
        /** A claim was answered by the gate alone: a replay, or a duplicate of work in progress. No database statement. */
        ANSWERED_BY_GATE,
        /** The database was asked to decide or read a claim: a first execution, a takeover, a key the gate did not know. */
        DECIDED_BY_DATABASE,
        /**
         * The gate disagreed with the database (it had lost, stale or foreign data, or predicted a claim the
         * database decided otherwise) and now defers to it. Expected after a Redis restart or flush.
         */
        GATE_CORRECTED,
        /** A gate call failed (error or timeout); the call went on with the database alone. */
        GATE_FAILED,
        /** The gate failed after working: calls use the database alone until a retry finds it answering. */
        GATE_DOWN,
        /** The gate answered again after being down, and is used again. */
        GATE_UP,
        /** A call did not use the gate because it is down. */
        GATE_SKIPPED
    }
}
