package dev.idem.client;

import java.util.Objects;

/**
 * One attempt of a logical operation: the idempotency key shared by all of its attempts and the
 * 1-based attempt number.
 *
 * @param idempotencyKey the key of the logical operation, identical on every attempt
 * @param number 1 for the first attempt, 2 for the first retry, and so on
 */
public record Attempt(String idempotencyKey, int number) {

    /**
     * Validates the components.
     *
     * @param idempotencyKey the {@code Idempotency-Key} value sent on every attempt
     * @param number 1 for the first attempt, 2 for the first retry, and so on
     */
    public Attempt {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        if (number < 1) {
            throw new IllegalArgumentException("number must be at least 1 but was " + number);
        }
    }

    /**
     * Returns true for a retry, i.e. any attempt but the first.
     *
     * @return true for a retry, i.e. any attempt but the first
     */
    public boolean isRetry() {
        return number > 1;
    }
}
