package dev.idem.engine;

import dev.idem.api.IdempotencyException;

/**
 * The answer of an asynchronous call made while the engine already has
 * {@link IdempotencyEngineBuilder#maxAsyncCalls its bound} of asynchronous calls in flight:
 * nothing was claimed and the work did not run, so the same call may simply be retried later
 * (HTTP 503). It keeps a burst of callers from piling unbounded pending work, store calls and
 * heartbeats onto the engine.
 */
public class AsyncCallsFullException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** The engine's {@code maxAsyncCalls} at the time of the refusal. */
    private final int limit;

    /**
     * Creates the exception.
     *
     * @param limit the bound that was reached
     */
    public AsyncCallsFullException(int limit) {
        super(limit + " asynchronous idempotent calls are already in flight (maxAsyncCalls); the work did not run,"
                + " retry later");
        this.limit = limit;
    }

    /**
     * The bound that was reached.
     *
     * @return the engine's {@code maxAsyncCalls}
     */
    public int limit() {
        return limit;
    }

    @Override
    public int httpStatus() {
        return 503;
    }
}
