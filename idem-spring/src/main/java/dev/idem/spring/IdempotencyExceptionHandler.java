package dev.idem.spring;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.http.HttpIdempotency;
import java.net.URI;
import java.time.Duration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers every {@link IdempotencyException} that reaches Spring MVC (thrown through an
 * {@link Idempotent} method) as an RFC 9457 {@link ProblemDetail}, with the same types as the
 * Idempotency-Key filter ({@code https://idem.dev/problems/<slug>}): key reused 422,
 * request in progress 409 with {@code Retry-After}, invalid key or malformed request 400, too
 * large 413, no scope 401, stored final failure 422 with its {@code code}, outcome not stored 500,
 * store unavailable 503 with {@code Retry-After}. Ordered before the application's own catch-all
 * handlers ({@link #ORDER}); a handler of the application for a more specific type, or with a
 * higher precedence, still wins.
 */
@ControllerAdvice
public class IdempotencyExceptionHandler implements Ordered {
    /** The order of this advice: early, so a catch-all {@code @ExceptionHandler(Exception.class)} does not make these 500s. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;
    private static final System.Logger LOG = System.getLogger(IdempotencyExceptionHandler.class.getName());

    private final Duration storeRetryAfter;

    /**
     * The handler.
     *
     * @param storeRetryAfter the {@code Retry-After} of a 503 when the store is unavailable
     */
    public IdempotencyExceptionHandler(Duration storeRetryAfter) {
        this.storeRetryAfter = storeRetryAfter;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    /**
     * The problem response for {@code e}.
     *
     * @param e what the engine (or the annotation's evaluation) threw
     * @return the problem response
     */
    @ExceptionHandler(IdempotencyException.class)
    public ResponseEntity<ProblemDetail> handle(IdempotencyException e) {
        HttpHeaders headers = new HttpHeaders();
        ProblemDetail problem;
        if (e instanceof KeyReusedException) {
            problem = problem(e, "key-reused", "Idempotency-Key reused",
                    "this idempotency key was already used with a different request");
        } else if (e instanceof RequestInProgressException r) {
            problem = problem(e, "request-in-progress", "Request in progress",
                    "a request with this idempotency key is still being processed; retry later");
            headers.set(HttpHeaders.RETRY_AFTER, seconds(r.retryAfter()));
        } else if (e instanceof LeaseLostException) {
            problem = problem(e, "request-in-progress", "Request taken over",
                    "this attempt outlived its lease and another attempt took over; retry to get its outcome");
            headers.set(HttpHeaders.RETRY_AFTER, "1");
        } else if (e instanceof InvalidIdempotencyKeyException) {
            problem = problem(e, "invalid-key", "Invalid idempotency key", e.getMessage());
        } else if (e instanceof InvalidRequestException r) {
            problem = r.tooLarge() ? problem(e, "request-too-large", "Request too large", e.getMessage())
                    : problem(e, "invalid-request", "Malformed request", e.getMessage());
        } else if (e instanceof MissingScopeException) {
            problem = problem(e, "unauthenticated", "Unauthenticated",
                    "an idempotent operation needs an authenticated caller to scope its key");
        } else if (e instanceof FinalFailureException f) {
            problem = problem(e, "replayed-failure", "Request failed", f.detail());
            problem.setProperty("code", f.code());
        } else if (e instanceof OutcomeNotStoredException) {
            LOG.log(System.Logger.Level.WARNING, "an idempotent operation ran but its outcome was not stored", e);
            problem = problem(e, "outcome-not-stored", "Outcome not stored",
                    "the request was processed but its outcome could not be stored; it will not be processed again");
        } else if (e instanceof OutcomeUnreadableException u) {
            // The key id and reason are for the operator's log, not the client.
            LOG.log(System.Logger.Level.WARNING, "an idempotent operation ran but its stored outcome cannot be read ("
                    + u.reason() + (u.keyId() == null ? "" : ", key id " + u.keyId()) + ")");
            problem = problem(e, "outcome-unreadable", "Stored outcome unreadable",
                    "the request was processed but its stored outcome cannot be read; it will not be processed again");
        } else if (e instanceof StoreUnavailableException) {
            problem = problem(e, "store-unavailable", "Service unavailable",
                    "the idempotency store is unavailable; retry later");
            headers.set(HttpHeaders.RETRY_AFTER, seconds(storeRetryAfter));
        } else {
            problem = problem(e, "idempotency-error", "Idempotency error",
                    e.httpStatus() < 500 ? e.getMessage() : "the idempotent operation failed");
        }
        return ResponseEntity.status(e.httpStatus()).headers(headers).body(problem);
    }

    private static ProblemDetail problem(IdempotencyException e, String slug, String title, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(e.httpStatus()), detail);
        p.setType(URI.create(HttpIdempotency.PROBLEM_TYPE_PREFIX + slug));
        p.setTitle(title);
        return p;
    }

    private static String seconds(Duration d) {
        return Long.toString(Math.max(1, (d.toMillis() + 999) / 1000));
    }
}
