package dev.idem.api;

/**
 * The caller's deadline had passed before the work could start (HTTP 504): before the key was
 * claimed, in which case nothing was stored, or while it was being claimed, in which case the
 * claim was given back. The work did not run; a retry with time left runs it (or replays the
 * outcome of a duplicate that did). A deadline that passes once the work has started changes
 * nothing: the work runs to its end and its outcome is stored and replayed.
 */
public class DeadlineExceededException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key whose call was refused. */
    private final IdempotencyKey key;

    /**
     * Creates the exception.
     *
     * @param key the key whose call was refused
     * @param claimed whether the deadline passed while the key was being claimed (the claim was
     *     given back) rather than before it
     */
    public DeadlineExceededException(IdempotencyKey key, boolean claimed) {
        super("the caller's deadline passed " + (claimed ? "while idempotency key " + key.key()
                + " was being claimed for " + key.operation() + "; the claim was given back" : "before idempotency key "
                + key.key() + " was claimed for " + key.operation() + "; nothing was stored")
                + " and the work did not run");
        this.key = key;
    }

    /**
     * The key whose call was refused.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    @Override
    public int httpStatus() {
        return 504;
    }
}
