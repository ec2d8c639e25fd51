package dev.idem.client;

import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.InvalidRequestTimeoutException;
import dev.idem.api.RequestTimeoutHeader;
import dev.idem.api.time.Sleeper;
import dev.idem.client.internal.ResendCount;
import dev.idem.client.internal.RetryAfterParser;
import dev.idem.client.internal.RetrySession;
import dev.idem.client.internal.TransientFailures;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Sends requests through a {@link HttpClient} with an {@value #IDEMPOTENCY_KEY} header, retrying
 * under a {@link RetryPolicy} and a shared {@link RetryBudget}. Immutable and thread-safe.
 *
 * <p>The key: a request that already carries the header keeps its value (so a caller can persist a
 * key and reuse it after a restart); otherwise one is generated before the first attempt. Every
 * attempt sends the same value. The request's body publisher must be repeatable (the {@code
 * BodyPublishers} for strings, byte arrays and files are).
 *
 * <p>Each attempt's timeout is the request's own timeout, shortened to the time left before the
 * deadline: the policy's, or the caller's if that comes first (a deadline bound to the calling
 * thread, {@link dev.idem.api.time.Deadline#current()}, as the engine binds one while work runs,
 * or an {@value #REQUEST_TIMEOUT} header the request already carries). Every attempt sends that
 * timeout as its {@value #REQUEST_TIMEOUT} header, in whole milliseconds rounded down (at least 1),
 * so the server knows how long this attempt waits: the header shrinks from attempt to attempt as
 * the sequence spends its time, and is never more than the attempt's own timeout (see
 * {@link RequestTimeoutHeader}; {@link Builder#withoutRequestTimeoutHeader()} leaves it out). A
 * server {@code Retry-After} (delta-seconds or HTTP-date) on a retryable
 * response raises the delay of the next retry; if it reaches past the deadline the response is
 * returned at once. A response whose status is still retryable when retrying stops is returned, not
 * thrown; an exception is thrown (or completes the future) unchanged, with those of earlier
 * attempts attached as suppressed. The bodies of responses that are retried are closed if they are
 * {@link AutoCloseable}.
 *
 * <p>Tracing: where the OpenTelemetry API is on the class path and a span is current when a
 * request is sent (the caller's span, or an HTTP client span the application opened around the
 * call), each re-sent attempt sets that span's {@code http.request.resend_count} (OpenTelemetry's
 * HTTP semantic conventions) to its number: 1 as the second attempt goes out, 2 as the third, so
 * the span ends with the number of re-sends. Without OpenTelemetry (an optional dependency) nothing
 * of it is loaded.
 */
public final class IdempotentHttpClient {

    /** The request header that carries the key. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** The request header that carries the attempt's budget, {@value}. */
    public static final String REQUEST_TIMEOUT = RequestTimeoutHeader.NAME;

    private static final Duration MIN_ATTEMPT_TIMEOUT = Duration.ofMillis(1);

    private final HttpClient client;
    private final RetryPolicy policy;
    private final RetryBudget budget;
    private final RetryListener listener;
    private final IdempotencyKeyGenerator keyGenerator;
    private final RetryClassifier<HttpResponse<?>> classifier;
    private final boolean quoteKey;
    private final boolean sendTimeout;

    private IdempotentHttpClient(Builder b) {
        this.client = b.client;
        this.policy = b.policy;
        this.budget =
                b.budget != null ? b.budget : RetryBudget.builder().ticker(b.policy.ticker()).build();
        this.listener = b.listener;
        this.keyGenerator = b.keyGenerator;
        this.classifier = b.classifier;
        this.quoteKey = b.quoteKey;
        this.sendTimeout = b.sendTimeout;
    }

    /**
     * Returns a builder around {@code client}, with the same defaults as {@link Retrier#builder()}.
     *
     * @param client the client
     * @return a builder around {@code client}, with the same defaults as {@link Retrier#builder()}
     */
    public static Builder newBuilder(HttpClient client) {
        return new Builder(client);
    }

    /**
     * Sends {@code request}, retrying as the policy allows.
     *
     * @param <T> the response body type
     * @param request the request
     * @param handler the handler
     * @return the idempotent response
     * @throws IOException the last attempt's failure, if no attempt produced a response to return
     * @throws InterruptedException if interrupted while sending or waiting
     */
    public <T> IdempotentResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        Objects.requireNonNull(request, "request must not be null");
        Objects.requireNonNull(handler, "handler must not be null");
        RetrySession session = new RetrySession(policy, budget, listener, keyOf(request), callerBudget(request));
        Object span = ResendCount.currentSpan();
        while (true) {
            session.begin();
            HttpResponse<T> response = null;
            IOException failure = null;
            RetryDecision decision;
            try {
                response = client.send(attemptRequest(request, session, span), handler);
                decision = classifyResponse(response);
            } catch (IOException e) {
                failure = e;
                decision = classifier.classifyFailure(e);
            } catch (InterruptedException e) {
                throw session.withEarlierFailures(e);
            }
            Optional<Duration> delay =
                    decision.shouldRetry() ? session.scheduleRetry(decision) : Optional.empty();
            if (delay.isEmpty()) {
                if (failure != null) {
                    throw session.withEarlierFailures(failure);
                }
                return result(response, session);
            }
            discard(response, failure, session);
            policy.sleeper().sleep(delay.get());
        }
    }

    /**
     * Sends {@code request} asynchronously, retrying as the policy allows, without blocking a thread
     * between attempts (given a timer-based {@link Sleeper}). Cancelling the returned future stops
     * further attempts.
     *
     * @param <T> the response body type
     * @param request the request
     * @param handler the handler
     * @return a future that completes with the result
     */
    public <T> CompletableFuture<IdempotentResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler) {
        Objects.requireNonNull(request, "request must not be null");
        Objects.requireNonNull(handler, "handler must not be null");
        CompletableFuture<IdempotentResponse<T>> result = new CompletableFuture<>();
        try {
            RetrySession session = new RetrySession(policy, budget, listener, keyOf(request),
                    callerBudget(request));
            new AsyncCall<>(request, handler, session, result).attempt();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /**
     * The wrapped client.
     *
     * @return the wrapped client
     */
    public HttpClient httpClient() {
        return client;
    }

    /**
     * The policy applied to every request.
     *
     * @return the policy applied to every request
     */
    public RetryPolicy policy() {
        return policy;
    }

    /**
     * The budget shared by every request.
     *
     * @return the budget shared by every request
     */
    public RetryBudget budget() {
        return budget;
    }

    private String keyOf(HttpRequest request) {
        // A key the caller set in either form is the same key; it is re-sent in this client's form.
        return request.headers().firstValue(IDEMPOTENCY_KEY)
                .map(v -> v.startsWith("\"") ? IdempotencyKeyHeader.parse(v) : v)
                .orElseGet(keyGenerator::newKey);
    }

    /** The budget the request itself carries in its {@value #REQUEST_TIMEOUT} header, or null. */
    private static Duration callerBudget(HttpRequest request) {
        try {
            return RequestTimeoutHeader.parse(request.headers().allValues(REQUEST_TIMEOUT)).orElse(null);
        } catch (InvalidRequestTimeoutException e) {
            throw new IllegalArgumentException("the request's " + REQUEST_TIMEOUT + " header is malformed: "
                    + e.getMessage(), e);
        }
    }

    private HttpRequest attemptRequest(HttpRequest request, RetrySession session, Object span) {
        ResendCount.resending(span, session.attempts());
        HttpRequest.Builder b = HttpRequest.newBuilder(request, (name, value) ->
                !name.equalsIgnoreCase(IDEMPOTENCY_KEY) && !name.equalsIgnoreCase(REQUEST_TIMEOUT));
        Duration remaining = session.remaining();
        Duration timeout = request.timeout().filter(t -> t.compareTo(remaining) < 0).orElse(remaining);
        if (timeout.compareTo(MIN_ATTEMPT_TIMEOUT) < 0) {
            timeout = MIN_ATTEMPT_TIMEOUT;
        }
        String field = quoteKey ? IdempotencyKeyHeader.format(session.key()) : session.key();
        b.header(IDEMPOTENCY_KEY, field).timeout(timeout);
        if (sendTimeout) {
            // The attempt's own timeout: what the server may spend before this attempt stops listening.
            b.header(REQUEST_TIMEOUT, RequestTimeoutHeader.format(timeout));
        }
        return b.build();
    }

    private RetryDecision classifyResponse(HttpResponse<?> response) {
        RetryDecision decision = Objects.requireNonNull(classifier.classifyResult(response));
        if (!decision.shouldRetry()) {
            return decision;
        }
        Optional<Duration> hint =
                response
                        .headers()
                        .firstValue("Retry-After")
                        .flatMap(v -> RetryAfterParser.parse(v, policy.clock().instant()));
        return decision.withRetryAfterIfAbsent(hint.orElse(null));
    }

    private static <T> IdempotentResponse<T> result(HttpResponse<T> response, RetrySession session) {
        return new IdempotentResponse<>(
                response,
                session.key(),
                session.attempts(),
                IdempotentResponse.isReplayed(response.headers()));
    }

    private static void discard(HttpResponse<?> response, Throwable failure, RetrySession session) {
        if (failure != null) {
            session.recordRetriedFailure(failure);
        } else if (response != null && response.body() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // The response is being thrown away; a failure to close it changes nothing for the caller.
            }
        }
    }

    /** The async loop: each stage decides, then either completes the result or schedules the next. */
    private final class AsyncCall<T> {
        private final HttpRequest request;
        private final BodyHandler<T> handler;
        private final RetrySession session;
        private final CompletableFuture<IdempotentResponse<T>> result;
        // The span current where sendAsync was called: later attempts run on other threads.
        private final Object span = ResendCount.currentSpan();

        AsyncCall(
                HttpRequest request,
                BodyHandler<T> handler,
                RetrySession session,
                CompletableFuture<IdempotentResponse<T>> result) {
            this.request = request;
            this.handler = handler;
            this.session = session;
            this.result = result;
        }

        void attempt() {
            if (result.isDone()) {
                return;
            }
            try {
                session.begin();
                client.sendAsync(attemptRequest(request, session, span), handler).whenComplete(this::onOutcome);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }

        private void onOutcome(HttpResponse<T> response, Throwable error) {
            try {
                Throwable failure = error == null ? null : TransientFailures.unwrap(error);
                RetryDecision decision =
                        failure == null ? classifyResponse(response) : classifier.classifyFailure(failure);
                Optional<Duration> delay =
                        decision.shouldRetry() && !result.isDone()
                                ? session.scheduleRetry(decision)
                                : Optional.empty();
                if (delay.isEmpty()) {
                    if (failure != null) {
                        result.completeExceptionally(session.withEarlierFailures(failure));
                    } else {
                        result.complete(result(response, session));
                    }
                    return;
                }
                discard(response, failure, session);
                policy.sleeper().delay(delay.get()).whenComplete((ignored, sleepFailure) -> {
                    if (sleepFailure != null) {
                        result.completeExceptionally(sleepFailure);
                    } else {
                        attempt();
                    }
                });
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }
    }

    /** Validating builder. Not thread-safe. */
    public static final class Builder {
        private final HttpClient client;
        private RetryPolicy policy = RetryPolicy.defaults();
        private RetryBudget budget;
        private RetryListener listener = RetryListener.NONE;
        private IdempotencyKeyGenerator keyGenerator = IdempotencyKeyGenerator.uuidV7();
        private RetryClassifier<HttpResponse<?>> classifier = HttpRetryClassifier.standard();
        private boolean quoteKey = true;
        private boolean sendTimeout = true;

        private Builder(HttpClient client) {
            this.client = Objects.requireNonNull(client, "client must not be null");
        }

        /**
         * The retry policy.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder policy(RetryPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy must not be null");
            return this;
        }

        /**
         * The budget; pass the same instance to several clients to share it.
         *
         * @param budget the budget
         * @return this builder
         */
        public Builder budget(RetryBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget must not be null");
            return this;
        }

        /**
         * The listener.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(RetryListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        /**
         * Where keys come from when a request carries none.
         *
         * @param keyGenerator the key generator
         * @return this builder
         */
        public Builder keyGenerator(IdempotencyKeyGenerator keyGenerator) {
            this.keyGenerator = Objects.requireNonNull(keyGenerator, "keyGenerator must not be null");
            return this;
        }

        /**
         * The classification; defaults to {@link HttpRetryClassifier#standard()}.
         *
         * @param classifier the classifier
         * @return this builder
         */
        public Builder classifier(RetryClassifier<HttpResponse<?>> classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier must not be null");
            return this;
        }

        /**
         * Sends the key as a bare token ({@code Idempotency-Key: 8e03978e-...}) instead of the
         * draft's Structured Field string ({@code Idempotency-Key: "8e03978e-..."}), the default.
         * Only for servers that take the header's raw text as the key: to them the quotes would
         * be part of it. Servers on idem-http accept both forms.
         *
         * @return this builder
         */
        public Builder bareKeyHeader() {
            this.quoteKey = false;
            return this;
        }

        /**
         * Sends no {@value IdempotentHttpClient#REQUEST_TIMEOUT} header. Only for servers that read
         * that header otherwise (some take it in seconds): to them the attempt's milliseconds would
         * read as a budget a thousand times too long. A header the request carries itself still
         * bounds the retries, and is then not sent either.
         *
         * @return this builder
         */
        public Builder withoutRequestTimeoutHeader() {
            this.sendTimeout = false;
            return this;
        }

        /**
         * Builds the client; without an explicit budget it gets its own default one.
         *
         * @return the idempotent http client
         */
        public IdempotentHttpClient build() {
            return new IdempotentHttpClient(this);
        }
    }
}
