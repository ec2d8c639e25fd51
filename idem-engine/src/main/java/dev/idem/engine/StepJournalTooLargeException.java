package dev.idem.engine;

import dev.idem.api.IdempotencyKey;

/**
 * A step ran, but the journal holding its result would exceed the store's
 * {@link dev.idem.api.store.StoreCapabilities#maxOutcomeBytes()}. As for every
 * {@link StepNotJournaledException}, the key is failed finally (code {@value #CODE}) so
 * that no retry repeats the step's effect. Keep step results small (identifiers, not
 * documents) to stay far from the limit.
 */
public class StepJournalTooLargeException extends StepNotJournaledException {
    private static final long serialVersionUID = 1L;

    /** The failure code stored for the key. */
    public static final String CODE = "step_journal_too_large";

    /** The size the journal would have had. */
    private final long bytes;
    /** The store's limit. */
    private final long limit;

    /**
     * Creates the exception.
     *
     * @param key the key whose journal overflowed
     * @param step the step whose result did not fit
     * @param bytes the size the journal would have had
     * @param limit the store's limit
     */
    public StepJournalTooLargeException(IdempotencyKey key, String step, long bytes, long limit) {
        super(key, step, CODE, "step '" + step + "' of idempotency key " + key.key() + " on " + key.operation()
                + " ran, but the journal with its result is " + bytes + " bytes, over the store's limit of "
                + limit + "; its effect and those of earlier steps stand, and the key is failed finally so that"
                + " no retry repeats them", null);
        this.bytes = bytes;
        this.limit = limit;
    }

    /**
     * The size the journal would have had.
     *
     * @return bytes
     */
    public long bytes() {
        return bytes;
    }

    /**
     * The store's limit.
     *
     * @return bytes
     */
    public long limit() {
        return limit;
    }
}
