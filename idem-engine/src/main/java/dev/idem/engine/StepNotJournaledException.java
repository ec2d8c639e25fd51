package dev.idem.engine;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;

/**
 * A step ran, but its result could not be journaled (it cannot be written as JSON, or the
 * journal would exceed the store's limit: {@link StepJournalTooLargeException}). The step's
 * effect has happened and cannot be recorded as finished, so running the work again would
 * repeat it: the engine stores this failure as the key's final outcome (code {@link #code()})
 * whatever the {@link FailureClassifier} says, and whatever the work does with this
 * exception (rethrows it, throws another, or swallows it and returns a value: the engine
 * decides from its own record of the step). The first caller gets this exception, every
 * later call a {@link dev.idem.api.ReplayedFailureException} with the same code and detail;
 * both are {@link FinalFailureException}s. The effects of this step and of the steps before
 * it stand; the application reconciles them (the message names the step). Every later step
 * of the same execution throws this exception again without running.
 */
public class StepNotJournaledException extends FinalFailureException {
    private static final long serialVersionUID = 1L;

    /** The failure code stored when a step result cannot be written. */
    public static final String CODE = "step_not_journaled";

    /** The step whose result could not be journaled. */
    private final String step;

    /**
     * Creates the exception with code {@value #CODE}.
     *
     * @param key the key whose step could not be journaled
     * @param step the step whose result could not be journaled
     * @param message why, naming the step; stored as the failure's detail
     * @param cause the underlying failure, or null
     */
    public StepNotJournaledException(IdempotencyKey key, String step, String message, Throwable cause) {
        this(key, step, CODE, message, cause);
    }

    /**
     * Creates the exception with another code, for subtypes.
     *
     * @param key the key whose step could not be journaled
     * @param step the step whose result could not be journaled
     * @param code the failure code stored for the key
     * @param message why, naming the step; stored as the failure's detail
     * @param cause the underlying failure, or null
     */
    protected StepNotJournaledException(IdempotencyKey key, String step, String code, String message,
            Throwable cause) {
        super(message, key, code, message, cause);
        this.step = step;
    }

    /**
     * The step whose result could not be journaled.
     *
     * @return the step name
     */
    public String step() {
        return step;
    }
}
