package dev.idem.client;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Objects;

/**
 * The final response of an {@link IdempotentHttpClient} call, with the key sent on every attempt,
 * the number of attempts, and whether the server said it replayed a stored response instead of
 * executing the request again. The response may still carry a retryable status (e.g. 503) if
 * retrying stopped; check {@link HttpResponse#statusCode()} as usual.
 *
 * @param response the last attempt's response
 * @param idempotencyKey the {@code Idempotency-Key} value sent on every attempt
 * @param attempts the number of attempts made, at least 1
 * @param replayed true if the server marked the response as a replay
 * @param <T> the body type
 */
public record IdempotentResponse<T>(
        HttpResponse<T> response, String idempotencyKey, int attempts, boolean replayed) {

    /**
     * Validates the components.
     *
     * @param response the last attempt's response
     * @param idempotencyKey the {@code Idempotency-Key} value sent on every attempt
     * @param attempts the number of attempts made, at least 1
     * @param replayed true if the server marked the response as a replay
     */
    public IdempotentResponse {
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1 but was " + attempts);
        }
    }

    /**
     * The status code of the last response.
     *
     * @return the status code of the last response
     */
    public int statusCode() {
        return response.statusCode();
    }

    /**
     * The body of the last response.
     *
     * @return the body of the last response
     */
    public T body() {
        return response.body();
    }

    /**
     * True if the headers mark a replayed response: {@code Idempotency-Status: replayed} or {@code
     * Idempotent-Replayed: true} (values compared ignoring case).
     *
     * @param headers the headers
     * @return {@code true} if the headers mark a replayed response
     */
    public static boolean isReplayed(HttpHeaders headers) {
        boolean status =
                headers.allValues("Idempotency-Status").stream()
                        .anyMatch(v -> v.trim().toLowerCase(Locale.ROOT).equals("replayed"));
        return status
                || headers.allValues("Idempotent-Replayed").stream()
                        .anyMatch(v -> v.trim().equalsIgnoreCase("true"));
    }
}
