package dev.idem.store.hybrid.internal;

import dev.idem.api.store.RecordState;
import org.jspecify.annotations.Nullable;

/**
 * A database record to write into the gate, its instants moved onto the gate's clock (ms).
 *
 * @param state IN_PROGRESS or COMPLETED
 * @param fingerprint the fingerprint
 * @param token the token
 * @param attempt the attempt
 * @param created the creation time
 * @param lease the lease deadline (IN_PROGRESS), else 0
 * @param expires the expiry
 * @param outcome the outcome (COMPLETED), else null
 */
record GateSnapshot(RecordState state, byte[] fingerprint, long token, int attempt, long created,
        long lease, long expires, byte @Nullable [] outcome) {
}
