package dev.idem.engine;

import java.util.concurrent.CompletionStage;

/**
 * The state-changing operation of an asynchronous call
 * ({@link IdempotencyEngine#executeAsync(dev.idem.api.IdempotencyKey, Object, Class, AsyncWork)}):
 * it starts the effect and returns a stage that completes with its result. The stage's outcome
 * is what counts: a value is stored and replayed, an exceptional completion is classified by the
 * engine's {@link FailureClassifier} as if the work had thrown it.
 *
 * <p>{@link #execute} is called once per claim, on a thread of the engine's async executor (never
 * the caller's); it should return its stage without blocking. The context's
 * {@link ExecutionContext#step steps} and {@link ExecutionContext#extendLease extendLease} are
 * blocking store round trips: call them only from a thread that may block, never from an event loop.
 *
 * @param <T> the result, which must survive a round trip through the engine's JSON codec
 */
@FunctionalInterface
public interface AsyncWork<T> {
    /**
     * Starts the operation.
     *
     * @param context the execution's key, token, lease and steps
     * @return a stage that completes with the result (or exceptionally with the failure); not null
     * @throws Exception a failure before the stage exists; treated as an exceptional completion
     */
    CompletionStage<T> execute(ExecutionContext context) throws Exception;
}
