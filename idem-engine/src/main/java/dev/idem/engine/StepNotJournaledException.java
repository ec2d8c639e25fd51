package dev.idem.engine;

import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;

/**
 * A step ran, but its result could not be journaled (it cannot be written as JSON, or the
 * journal would exceed the store's limit: {@link StepJournalTooLargeException}). The step's
 * effect has happened and cannot be recorded as finished, so running the work again would
 * repeat it: the engine stores this failure as the key's final outcome (code {@link #code()})
 * whatever the {@link FailureClassifier} says: every call with the key gets a
 * {@link dev.idem.api.FinalFailureException} with that code, the first one with this
 * exception as its cause. The effects of this step and of the steps
 * before it stand; the application reconciles them (the message names the step). Every
 * later step of the same execution throws this exception again without running.
 */
public class StepNotJournaledException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The failure code stored when a step result cannot be written. */
    public static final String CODE = "step_not_journaled";

    private final IdempotencyKey key;
    private final String step;

    /**
     * Creates the exception.
     *
     * @param key the key whose step could not be journaled
     * @param step the step whose result could not be journaled
     * @param message why, naming the step
     * @param cause the underlying failure, or null
     */
    public StepNotJournaledException(IdempotencyKey key, String step, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
        this.step = step;
    }

    /**
     * The key whose step could not be journaled.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * The step whose result could not be journaled.
     *
     * @return the step name
     */
    public String step() {
        return step;
    }

    /**
     * The failure code the engine stores for the key.
     *
     * @return {@value #CODE} unless a subclass says otherwise
     */
    public String code() {
        return CODE;
    }
}
