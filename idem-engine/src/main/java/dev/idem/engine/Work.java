package dev.idem.engine;

/**
 * The state-changing operation idem protects. It runs at most once per lease for a key;
 * it should pass {@link ExecutionContext#downstreamKey()} to downstream APIs that
 * deduplicate too, so that even a worker that outlives its lease cannot double an effect
 * there.
 *
 * @param <T> the result, which must survive a round trip through the engine's ObjectMapper
 */
@FunctionalInterface
public interface Work<T> {
    /**
     * Performs the operation. Any exception is classified by the engine's {@link FailureClassifier}.
     *
     * @param context the execution's key, token, lease and steps
     * @return the result, stored and replayed to duplicates
     * @throws Exception any failure; classified by the engine's {@link FailureClassifier}
     */
    T execute(ExecutionContext context) throws Exception;
}
