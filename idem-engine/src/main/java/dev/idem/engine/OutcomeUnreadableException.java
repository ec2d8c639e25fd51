package dev.idem.engine;

import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import org.jspecify.annotations.Nullable;

/**
 * The work for this key ran (its effect happened), but what the store holds of it cannot be
 * read: the stored outcome or step journal was encrypted under a key id the
 * {@link dev.idem.engine.protection.KeyProvider} no longer has, under another key with that id,
 * was altered or cut short, or the record's fingerprint was keyed with a secret no longer
 * provided. The work is never run again for it: a completed record stays as it is, and an
 * in-progress one is handed back without running anything, so every retry gets this exception
 * until the key is provided again (then the record is read as usual) or the record expires.
 * {@link #keyId()} names the missing or mismatched key; the message never holds key material.
 * HTTP 500: it is the server's fault.
 */
public class OutcomeUnreadableException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** Why the record cannot be read. */
    public enum Reason {
        /** The record names a key id the key provider does not have (or protection is off). */
        KEY_MISSING,
        /** The provider's key under the record's key id is not the key the record was written with. */
        WRONG_KEY,
        /** The ciphertext, or what it is bound to (scope, operation, key, fingerprint), was altered. */
        TAMPERED,
        /** The stored bytes end before the record does. */
        TRUNCATED,
        /** The record is not encrypted, and the engine refuses unencrypted records. */
        NOT_ENCRYPTED,
        /** The key provider failed. */
        KEY_PROVIDER_FAILED,
        /** The {@link dev.idem.engine.protection.OutcomeFilter} could not rebuild the replayed result. */
        REBUILD_FAILED
    }

    /** The key whose record cannot be read. */
    private final IdempotencyKey key;
    /** Why. */
    private final Reason reason;
    /** The key id the record names, if known. */
    private final @Nullable String keyId;

    /**
     * Creates the exception.
     *
     * @param key the idempotency key whose record cannot be read
     * @param reason why
     * @param keyId the key id the record names, or null if it is not known
     * @param detail what cannot be read and why, without key material
     * @param cause the underlying failure, or null
     */
    public OutcomeUnreadableException(IdempotencyKey key, Reason reason, @Nullable String keyId, String detail,
            @Nullable Throwable cause) {
        super("the work for idempotency key " + key.key() + " on " + key.operation() + " ran, but its stored record"
                + " cannot be read (" + detail + "); it will not run again", cause);
        this.key = key;
        this.reason = reason;
        this.keyId = keyId;
    }

    /**
     * The key whose record cannot be read.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * Why the record cannot be read.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The key id the record names (the missing one for {@link Reason#KEY_MISSING}), or null if
     * the record is not encrypted or too short to name one.
     *
     * @return the key id, or null
     */
    public @Nullable String keyId() {
        return keyId;
    }
}
