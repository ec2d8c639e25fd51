package dev.idem.api;

/**
 * This execution's lease was taken over by another worker (its fencing token is no
 * longer current), so its result was not stored and must not be reported as the key's
 * outcome. The outcome of the worker that took over stands.
 */
public class LeaseLostException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key whose lease was lost. */
    private final IdempotencyKey key;
    /** The stale token. */
    private final long fencingToken;

    /**
     * Creates the exception for the stale token.
     *
     * @param key the key
     * @param fencingToken the caller's token, no longer current
     */
    public LeaseLostException(IdempotencyKey key, long fencingToken) {
        super("lease for idempotency key " + key.key() + " on " + key.operation()
                + " was lost (fencing token " + Long.toHexString(fencingToken) + " is stale)");
        this.key = key;
        this.fencingToken = fencingToken;
    }

    /**
     * The key whose lease was lost.
     *
     * @return the key whose lease was lost
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * The stale token.
     *
     * @return the stale token
     */
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
