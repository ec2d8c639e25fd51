package dev.idem.client;

import dev.idem.client.internal.TransientFailures;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Decides whether the outcome of one attempt is worth retrying. An outcome is either a result (which
 * may itself signal a transient failure, like an HTTP 503) or an exception.
 *
 * <p>Implementations must be stateless or thread-safe and must not throw. Only outcomes the server
 * can have left unprocessed or will process the same way on a repeat should be retryable; a repeat
 * of a rejected request only adds load.
 *
 * @param <T> the result type
 */
public interface RetryClassifier<T> {

    /**
     * Classifies a result returned by an attempt.
     *
     * @param result the result
     * @return the retry decision
     */
    RetryDecision classifyResult(T result);

    /**
     * Classifies an exception thrown by an attempt ({@link InterruptedException} never gets here).
     *
     * @param failure the failure
     * @return the retry decision
     */
    RetryDecision classifyFailure(Throwable failure);

    /**
     * Retries transient transport failures only: {@link java.io.IOException} (connect failures,
     * resets, timeouts, early EOF; but not TLS handshake or certificate failures) and {@link
     * java.util.concurrent.TimeoutException}, also when wrapped in a completion or execution
     * exception. Results are never retried.
     *
     * @param <T> the result type
     * @return the retry classifier
     */
    static <T> RetryClassifier<T> transientFailures() {
        return of(result -> false, TransientFailures::isTransient);
    }

    /**
     * Builds a classifier from two predicates, for transports other than HTTP.
     *
     * @param retryResult true for results that signal a transient failure
     * @param retryFailure true for exceptions that signal a transient failure
     * @param <T> the result type
     * @return the retry classifier
     */
    static <T> RetryClassifier<T> of(
            Predicate<? super T> retryResult, Predicate<? super Throwable> retryFailure) {
        Objects.requireNonNull(retryResult, "retryResult");
        Objects.requireNonNull(retryFailure, "retryFailure");
        return new RetryClassifier<>() {
            @Override
            public RetryDecision classifyResult(T result) {
                return retryResult.test(result)
                        ? RetryDecision.retry("retryable result")
                        : RetryDecision.doNotRetry();
            }

            @Override
            public RetryDecision classifyFailure(Throwable failure) {
                return retryFailure.test(failure)
                        ? RetryDecision.retry(TransientFailures.describe(failure))
                        : RetryDecision.doNotRetry(TransientFailures.describe(failure));
            }
        };
    }
}
