package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;

/**
 * The physical minimum a store needs for one idempotent call, issued directly through the
 * same client the real store uses: an atomic claim that either inserts an IN_PROGRESS
 * record or returns the one already there, and a completion fenced by the token. No
 * fingerprinting, no result codec, no engine: what is left when everything idem adds is
 * taken away.
 */
public interface RawBaseline extends AutoCloseable {
    /** Inserts IN_PROGRESS when the key is free and returns null; otherwise returns the stored record (non-null). */
    Object claim(IdempotencyKey key, byte[] fingerprint, long token);

    /** Stores the outcome if the record still carries {@code token}. */
    boolean complete(IdempotencyKey key, long token, byte[] outcome);

    @Override
    default void close() {
    }
}
