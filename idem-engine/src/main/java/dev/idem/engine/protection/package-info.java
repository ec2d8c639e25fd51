/**
 * What the engine keeps of a record, and how: outcomes and step journals encrypted at rest
 * ({@link dev.idem.engine.IdempotencyEngineBuilder#encryptOutcomes}), request fingerprints
 * keyed with a secret ({@link dev.idem.engine.IdempotencyEngineBuilder#keyedFingerprints}),
 * both under versioned keys from a {@link dev.idem.engine.protection.KeyProvider}, and a hook
 * that decides what of a result is stored ({@link dev.idem.engine.protection.OutcomeFilter}).
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.engine.protection;
