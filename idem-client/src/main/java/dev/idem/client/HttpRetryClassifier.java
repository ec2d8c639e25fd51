package dev.idem.client;

import dev.idem.client.internal.ProblemType;
import dev.idem.client.internal.TransientFailures;
import java.net.http.HttpResponse;
import java.util.Locale;

/**
 * The default classification for HTTP: retry what the server did not (or not yet) process, never
 * what it rejected.
 *
 * <ul>
 *   <li>Retried: connect failures, timeouts, resets and other {@link java.io.IOException}s (not TLS
 *       handshake or certificate failures), and status 429, 500, 502, 503, 504, except a 500
 *       problem whose {@code type} ends with {@value #OUTCOME_NOT_STORED_TYPE_SUFFIX} (a final
 *       answer that every retry would get again).
 *   <li>Status 409 is retried only when it means "a request with this key is still in progress":
 *       the response carries a {@code Retry-After} header, or it is {@code application/problem+json}
 *       whose {@code type} ends with {@value #IN_PROGRESS_TYPE_SUFFIX} (the body is inspected only
 *       when the body handler produced a {@code String} or {@code byte[]}). Any other 409 is a real
 *       conflict, e.g. the key reused for a different request, and a repeat would fail the same way.
 *   <li>Never retried: every other status, including 400, 401, 403, 404, 408 and 422.
 * </ul>
 *
 * <p>Stateless and thread-safe. Implement {@link RetryClassifier} to change the rules.
 */
public final class HttpRetryClassifier implements RetryClassifier<HttpResponse<?>> {

    /** The problem type suffix that marks a 409 as "request with this key still in progress". */
    public static final String IN_PROGRESS_TYPE_SUFFIX = "request-in-progress";

    /**
     * The problem type suffix of a 500 that idem-http gives the first call and every retry alike
     * (the work ran but its outcome could not be stored), so repeating it cannot help.
     */
    public static final String OUTCOME_NOT_STORED_TYPE_SUFFIX = "outcome-not-stored";

    private static final HttpRetryClassifier STANDARD = new HttpRetryClassifier();

    private HttpRetryClassifier() {}

    /**
     * Returns the classifier described above.
     *
     * @return the classifier described above
     */
    public static HttpRetryClassifier standard() {
        return STANDARD;
    }

    @Override
    public RetryDecision classifyResult(HttpResponse<?> response) {
        int status = response.statusCode();
        return switch (status) {
            case 500 -> hasProblemType(response, OUTCOME_NOT_STORED_TYPE_SUFFIX)
                    ? RetryDecision.doNotRetry("HTTP 500 outcome not stored (the same answer on every retry)")
                    : RetryDecision.retry("HTTP 500");
            case 429, 502, 503, 504 -> RetryDecision.retry("HTTP " + status);
            case 409 -> isRequestInProgress(response)
                    ? RetryDecision.retry("HTTP 409 request in progress")
                    : RetryDecision.doNotRetry("HTTP 409 conflict");
            default -> RetryDecision.doNotRetry("HTTP " + status);
        };
    }

    @Override
    public RetryDecision classifyFailure(Throwable failure) {
        String reason = TransientFailures.describe(failure);
        return TransientFailures.isTransient(failure)
                ? RetryDecision.retry(reason)
                : RetryDecision.doNotRetry(reason);
    }

    /**
     * Applies the 409 rule above to any response (its status is not checked).
     *
     * @param response the last attempt's response
     * @return true if the response says the request is still in progress
     */
    public static boolean isRequestInProgress(HttpResponse<?> response) {
        if (response.headers().firstValue("Retry-After").isPresent()) {
            return true;
        }
        return hasProblemType(response, IN_PROGRESS_TYPE_SUFFIX);
    }

    private static boolean hasProblemType(HttpResponse<?> response, String suffix) {
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/problem+json")) {
            return false;
        }
        return ProblemType.of(response.body())
                .map(type -> type.endsWith(suffix))
                .orElse(false);
    }
}
