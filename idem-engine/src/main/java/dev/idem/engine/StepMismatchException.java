package dev.idem.engine;

import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;

/**
 * The work's steps do not match the key's journal: a step name was used twice in one
 * execution, a step at some position has another name than the journal recorded there
 * (steps reordered, renamed or removed while the key was in flight), the work ended before
 * starting every journaled step, or a journaled result cannot be read as the step's result
 * type any more. The journal is kept, so the key
 * resumes once code that matches it runs (see the README on changing steps safely).
 *
 * <p>By default the engine treats it like any exception from the work: transient, the key
 * is handed back with its journal (its fingerprint stays bound). A work that returns without
 * starting every step the journal holds (a step removed while keys were in flight) gets it
 * too, from the engine, in place of its result.
 */
public class StepMismatchException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The key whose journal does not match. */
    private final IdempotencyKey key;
    /** The step name the work asked for. */
    private final String step;

    /**
     * Creates the exception.
     *
     * @param key the key whose journal does not match
     * @param step the step name the work asked for
     * @param message what does not match
     * @param cause the decoding failure, or null
     */
    public StepMismatchException(IdempotencyKey key, String step, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
        this.step = step;
    }

    /**
     * The key whose journal does not match.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * The step the work asked for when the mismatch was found.
     *
     * @return the step name
     */
    public String step() {
        return step;
    }
}
