package dev.idem.api;

/**
 * The key was already used for a different request (another fingerprint): HTTP 422.
 * Checked before the in-progress state, so a mismatched payload gets 422 even while the
 * original request still runs. Nothing ran and nothing was stored.
 */
public class KeyReusedException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key that was reused. */
    private final IdempotencyKey key;

    /**
     * Creates the exception for {@code key}.
     *
     * @param key the key
     */
    public KeyReusedException(IdempotencyKey key) {
        super("idempotency key " + key.key() + " was already used with a different request for "
                + key.operation());
        this.key = key;
    }

    /**
     * The key that was reused.
     *
     * @return the key that was reused
     */
    public IdempotencyKey key() {
        return key;
    }

    @Override
    public int httpStatus() {
        return 422;
    }
}
