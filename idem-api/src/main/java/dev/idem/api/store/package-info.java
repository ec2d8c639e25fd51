/**
 * The store SPI: the few atomic, fenced operations over opaque bytes that a persistence
 * adapter implements. The state machine lives once, in the engine; a store only has to
 * make each operation below atomic (and, on a remote store, one round trip).
 *
 * <h2>Record life cycle</h2>
 * <pre>
 *   (absent | expired | RELEASED) --claim--> IN_PROGRESS(token, lease)
 *   IN_PROGRESS --complete(token)--> COMPLETED(outcome, expiresAt)
 *   IN_PROGRESS --release(token)---> RELEASED (counts as absent, keeps the attempt count)
 *   IN_PROGRESS with lapsed lease and the same fingerprint --claim--> IN_PROGRESS(new token, attempt + 1)
 *   IN_PROGRESS --checkpoint(token, journal)--> IN_PROGRESS (journal replaced)
 * </pre>
 * Every record carries its creation time (kept until it expires) and, while IN_PROGRESS or
 * RELEASED, an optional step journal that survives release and takeover for the same
 * fingerprint, so multi-step work resumes where a crashed or failed attempt stopped.
 * A record whose {@code expiresAt} has passed is absent for every operation, whether or
 * not the store has physically removed it yet.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
@NullMarked
package dev.idem.api.store;

import org.jspecify.annotations.NullMarked;
