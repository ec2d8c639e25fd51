package dev.idem.api;

/**
 * This execution's lease was taken over by another worker (its fencing token is no
 * longer current), so its result was not stored and must not be reported as the key's
 * outcome. The outcome of the worker that took over stands.
 */
public class LeaseLostException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    private final IdempotencyKey key;
    private final long fencingToken;

    /** Creates the exception for the stale token. */
    public LeaseLostException(IdempotencyKey key, long fencingToken) {
        super("lease for idempotency key " + key.key() + " on " + key.operation()
                + " was lost (fencing token " + Long.toHexString(fencingToken) + " is stale)");
        this.key = key;
        this.fencingToken = fencingToken;
    }

    /** The key whose lease was lost. */
    public IdempotencyKey key() {
        return key;
    }

    /** The stale token. */
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public int httpStatus() {
        return 409;
    }
}
