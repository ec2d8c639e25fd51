/**
 * The engine: {@link dev.idem.engine.IdempotencyEngine} runs claim, execute, complete and
 * replay over any {@link dev.idem.api.store.IdempotencyStore}; {@link dev.idem.engine.CanonicalJson}
 * gives requests a stable fingerprint.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.engine;
