package dev.idem.spring;

import dev.idem.api.IdempotencyKey;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Wraps one engine call in whatever the application measures calls with (a Micrometer
 * observation named after the bounded operation). {@link #NONE} runs the call as it is.
 */
public interface CallObserver {
    /** Observes nothing. */
    CallObserver NONE = new CallObserver() {
        @Override
        public <T> T observe(String operationName, IdempotencyKey key, Supplier<T> call) {
            return call.get();
        }
    };

    /**
     * Runs {@code call}, an engine call for {@code key}, observed under {@code operationName}.
     *
     * @param <T> what the call returns
     * @param operationName a bounded name (a route template, an annotation's operation)
     * @param key the call's key
     * @param call the engine call
     * @return what the call returned
     */
    <T> T observe(String operationName, IdempotencyKey key, Supplier<T> call);

    /**
     * Runs {@code call}, an asynchronous engine call for {@code key}, observed under
     * {@code operationName} until its stage completes. The default runs it unobserved.
     *
     * @param <T> what the call's stage completes with
     * @param operationName a bounded name (a route template, an annotation's operation)
     * @param key the call's key
     * @param call the engine call
     * @return a stage that completes as the call's does
     */
    default <T> CompletableFuture<T> observeAsync(String operationName, IdempotencyKey key,
            Supplier<CompletableFuture<T>> call) {
        return call.get();
    }
}
