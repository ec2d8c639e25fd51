package dev.idem.engine.protection;

import org.jspecify.annotations.Nullable;

/**
 * Where the engine gets versioned secrets: the one new records are protected with, and any
 * older one a stored record names. {@link KeyRing} holds keys given in code or configuration;
 * implement this interface to fetch them from a secret manager or a KMS (cache them: the
 * engine asks on every write and every read).
 *
 * <p>Rotation: make a new key {@link #current()} while {@link #find} still returns the old
 * one. New records are then written under the new id, and older records stay readable until
 * they expire (one TTL, 24 h by default), after which the old key may be dropped. A record
 * whose key id is no longer found cannot be read: the engine answers with
 * {@link dev.idem.engine.OutcomeUnreadableException} naming that id, and does not run the
 * work again.
 *
 * <p>Implementations are thread-safe. An exception they throw on a write replaces the outcome
 * by a stored "not stored" marker; on a read it is answered with
 * {@link dev.idem.engine.OutcomeUnreadableException}. Neither ever carries the key's bytes.
 */
public interface KeyProvider {
    /**
     * The key new records are protected with.
     *
     * @return the current key
     */
    KeyVersion current();

    /**
     * The key with this id, current or older, or null if this provider does not have it.
     *
     * @param id the id a stored record names
     * @return the key, or null
     */
    @Nullable KeyVersion find(String id);
}
