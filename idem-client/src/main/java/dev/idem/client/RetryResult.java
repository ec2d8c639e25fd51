package dev.idem.client;

import java.util.Objects;

/**
 * The value produced by the last attempt of a {@link Retrier} call, with the key it used and how
 * many attempts were made. A value the classifier still considered retryable (retries were
 * exhausted) is returned as is: callers inspect it like any other result.
 *
 * @param value the last attempt's result; may be null if the operation returned null
 * @param idempotencyKey the key sent on every attempt
 * @param attempts the number of attempts made, at least 1
 * @param <T> the result type
 */
public record RetryResult<T>(T value, String idempotencyKey, int attempts) {

    /**
     * Validates the components.
     *
     * @param value the last attempt's result; may be null if the operation returned null
     * @param idempotencyKey the {@code Idempotency-Key} value sent on every attempt
     * @param attempts the number of attempts made, at least 1
     */
    public RetryResult {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1 but was " + attempts);
        }
    }
}
