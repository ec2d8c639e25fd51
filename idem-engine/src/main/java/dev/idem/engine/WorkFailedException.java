package dev.idem.engine;

import dev.idem.api.IdempotencyException;

/**
 * Wraps a checked exception thrown by the work, so {@code execute} need not declare
 * {@code throws Exception}. Unchecked exceptions and errors from the work are rethrown
 * as they are. The cause is the work's exception.
 */
public class WorkFailedException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Wraps {@code cause}.
     *
     * @param cause the underlying failure
     */
    public WorkFailedException(Exception cause) {
        super("the idempotent work failed: " + cause, cause);
    }
}
