package dev.idem.engine;

import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;

/**
 * The work ran, but its outcome could not be stored: the result cannot be written as JSON,
 * it is larger than the store holds, the store refused it for good, or an
 * {@link AtomicWork} returned without completing the record. The engine then stores a final
 * marker instead of the outcome, so the key is never freed after its work ran: the first
 * caller and every retry until the record expires get this exception with the same
 * {@link #reason()}, and nothing runs again. The first caller's exception carries the
 * underlying failure as its cause, if there was one. HTTP 500: it is the server's fault.
 */
public class OutcomeNotStoredException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key whose outcome was not stored. */
    private final IdempotencyKey key;
    /** Why, as stored in the marker. */
    private final String reason;
    /** Whether this answer comes from the stored marker. */
    private final boolean replayed;

    /**
     * Creates the exception.
     *
     * @param key the key whose outcome was not stored
     * @param reason why, as stored in the marker
     * @param replayed whether this answer comes from the stored marker rather than the execution
     * @param cause the underlying failure, or null
     */
    public OutcomeNotStoredException(IdempotencyKey key, String reason, boolean replayed, Throwable cause) {
        super("the work for idempotency key " + key.key() + " on " + key.operation()
                + " ran, but its outcome could not be stored (" + reason + "); it will not run again", cause);
        this.key = key;
        this.reason = reason;
        this.replayed = replayed;
    }

    /**
     * The key whose outcome was not stored.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * Why the outcome was not stored, as kept in the marker (the same for every caller).
     *
     * @return the reason
     */
    public String reason() {
        return reason;
    }

    /**
     * Whether this answer was replayed from the stored marker (false for the caller whose
     * execution ran).
     *
     * @return true on a replay
     */
    public boolean replayed() {
        return replayed;
    }
}
