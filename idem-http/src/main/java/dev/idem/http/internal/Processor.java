package dev.idem.http.internal;

import dev.idem.api.CallerScope;
import dev.idem.api.DeadlineExceededException;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.InvalidRequestTimeoutException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.RequestTimeoutHeader;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.time.Deadline;
import dev.idem.engine.CallOptions;
import dev.idem.engine.CanonicalJson;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.Result;
import dev.idem.engine.StoredBytes;
import dev.idem.engine.WorkFailedException;
import dev.idem.http.HandlerExecution;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IncomingRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server-neutral request flow shared by the JDK handler and the servlet filter: decide whether the request is
 * covered, read and check the key and the caller's budget ({@code X-Request-Timeout}), name the caller, fingerprint,
 * run the handler through the engine under the budget's deadline, and answer with the handler's response, a replay,
 * or a problem. Not API.
 */
public final class Processor {
    private static final System.Logger LOG = System.getLogger(Processor.class.getName());
    private static final byte[] DOMAIN = "idem-http/v1\0".getBytes(StandardCharsets.US_ASCII);

    /** What a server adapter provides. */
    public interface Exchange {
        /** The request line, headers and principal. */
        IncomingRequest request();

        /** Reads the request body, at most {@code limit + 1} bytes (so an oversize body is seen). */
        byte[] readBody(int limit) throws IOException;

        /** Hands the untouched request to the rest of the chain. */
        void passThrough() throws Exception;

        /**
         * Runs the rest of the chain on the buffered body and returns its buffered response,
         * keeping at most {@code maxResponseBytes} of its body (more bytes are dropped and
         * counted, and the response comes back larger than that, so it is refused as too large).
         */
        StoredResponse proceed(byte[] body, ExecutionContext context, int maxResponseBytes) throws Exception;

        /** Sends {@code response} with {@code extraHeaders} added. */
        void send(StoredResponse response, Map<String, String> extraHeaders) throws IOException;
    }

    private static final Map<String, String> CLOSE = Map.of("Connection", "close");

    private final HttpIdempotency config;
    private final int responseCap;
    private final BudgetHeaders budgets;
    // Null without a response filter.
    private final StoredResponseFilter filter;

    /** A processor for {@code config}. */
    public Processor(HttpIdempotency config) {
        this.config = config;
        this.filter = config.responseFilter() == null ? null
                : new StoredResponseFilter(config.responseFilter(), config.storedHeaders());
        this.budgets = new BudgetHeaders(config.deadlineHeaders());
        // Nothing longer than the store's outcome limit can be stored, so nothing longer is held:
        // one byte more is kept, so that an oversize response is still refused as oversize.
        int limit = config.engine().store().capabilities().maxOutcomeBytes();
        this.responseCap = limit == Integer.MAX_VALUE ? limit : limit + 1;
    }

    /**
     * Handles one exchange. On a covered request an exception from the handler becomes a 500
     * problem response and a log line (the key is released, or the failure stored if the
     * engine classifies it as final); on other requests it propagates unchanged.
     */
    public void handle(Exchange ex) throws Exception {
        IncomingRequest request = ex.request();
        Admission admission = admit(request);
        if (admission.passThrough()) {
            ex.passThrough();
            return;
        }
        if (admission.rejection() != null) {
            rejectUnread(ex, admission.rejection());
            return;
        }
        byte[] body = ex.readBody(config.maxBodyBytes());
        Prepared prepared = prepare(request, admission, body);
        if (prepared.reply() != null) {
            send(ex, prepared.reply());
            return;
        }
        run(ex, prepared.call(), body);
    }

    /** A response and the headers added to it when it is sent. */
    public record Reply(StoredResponse response, Map<String, String> extraHeaders) {
    }

    /**
     * What the request line, headers and principal decide before the body is read: pass the
     * request through untouched, reject it (after draining its body), or go on with its route,
     * key token, the caller's scope ({@code principal}, already in {@link CallerScope}'s encoding) and
     * the caller's deadline (null without {@code X-Request-Timeout}),
     * counted from when the headers were read.
     */
    public record Admission(boolean passThrough, StoredResponse rejection, String route, String token,
            String principal, Deadline deadline) {
    }

    /** The covered call, or the reply that ends the request before the engine sees it. */
    public record Prepared(HandlerExecution.Call call, Reply reply) {
    }

    private static final Admission PASS = new Admission(true, null, null, null, null, null);

    /** Decides, from the request line, headers and principal, whether and how the request is covered. */
    public Admission admit(IncomingRequest request) {
        String method = request.method();
        if (!config.methods().contains(method)) {
            return PASS;
        }
        Optional<String> route = config.routes().route(request);
        if (route.isEmpty()) {
            return PASS;
        }
        String token;
        try {
            token = KeyHeader.parse(request.headers(HttpIdempotency.IDEMPOTENCY_KEY));
        } catch (KeyHeader.InvalidKeyException e) {
            return reject(Problem.of(400, "invalid-key", "Invalid Idempotency-Key", e.getMessage()));
        }
        if (token == null) {
            return config.keyRequired(route.get()) ? reject(Problem.of(400, "missing-key",
                    "Idempotency-Key required", "this operation requires an Idempotency-Key header")) : PASS;
        }
        Deadline deadline;
        try {
            // Counted from here, when the headers are read: the time the body takes is the caller's too.
            deadline = budgets.budget(request)
                    .map(budget -> Deadline.after(budget, config.engine().ticker())).orElse(null);
        } catch (InvalidRequestTimeoutException e) {
            return reject(Problem.of(400, "invalid-request-timeout", "Invalid X-Request-Timeout", e.getMessage()));
        }
        Optional<String> principal = config.principals().scope(request);
        if (principal.isEmpty() || principal.get().isEmpty()) {
            return reject(Problem.of(401, "unauthenticated", "Unauthenticated",
                    "an idempotent request needs an authenticated caller to scope its key"));
        }
        if (deadline != null && deadline.isExpired()) {
            return reject(deadlineExceeded());
        }
        return new Admission(false, null, route.get(), token, principal.get(), deadline);
    }

    private static Admission reject(StoredResponse problem) {
        return new Admission(false, problem, null, null, null, null);
    }

    private static StoredResponse deadlineExceeded() {
        return Problem.of(504, "deadline-exceeded", "Deadline exceeded", "the time the request's "
                + RequestTimeoutHeader.NAME + " gave ran out before it was processed; nothing was stored and nothing"
                + " ran, so it may be sent again with the same Idempotency-Key");
    }

    /** The headers of a rejection whose body could not be drained ({@code unread} holds more than the limit). */
    public Map<String, String> rejectionHeaders(byte[] unread) {
        return unread.length > config.maxBodyBytes() ? CLOSE : Map.of();
    }

    /** Checks the body read for an admitted request and builds its key and fingerprint. */
    public Prepared prepare(IncomingRequest request, Admission admission, byte[] body) {
        if (body.length > config.maxBodyBytes()) {
            return new Prepared(null, new Reply(Problem.of(413, "request-too-large", "Request too large",
                    "the request body exceeds " + config.maxBodyBytes() + " bytes"), CLOSE));
        }
        String method = request.method();
        IdempotencyKey key;
        byte[] material;
        // The record is keyed by the path as the client meant it (one spelling per path); metrics
        // and spans are named after the route, which is bounded.
        String path = Paths.normalize(request.path());
        try {
            // The scope comes encoded from the resolver; the operation is fitted the same way (a
            // method never holds ':', so an operation never meets the encoding's prefixes).
            key = IdempotencyKey.of(admission.principal(), CallerScope.of(method + " " + path), admission.token());
            material = fingerprintMaterial(request, path, body);
        } catch (InvalidIdempotencyKeyException e) {
            return new Prepared(null, new Reply(Problem.of(e.httpStatus(), "invalid-key", "Invalid Idempotency-Key",
                    e.getMessage()), Map.of()));
        } catch (InvalidRequestException e) {
            return new Prepared(null, new Reply(invalidRequest(e), Map.of()));
        }
        CallOptions options = admission.deadline() == null ? config.callOptions()
                : config.callOptions().withDeadline(admission.deadline());
        return new Prepared(new HandlerExecution.Call(request, admission.route(), method + " " + admission.route(),
                path, key, material, options), null);
    }

    /** The most response bytes a handler's buffered response keeps. */
    public int responseCap() {
        return responseCap;
    }

    /**
     * The type the engine stores a response as: a frame ({@link StoredBytes}, written back as it is
     * on a replay, also with a response filter, which works on the response before it is framed),
     * or, with an engine {@code OutcomeFilter} in the call options, the JSON that filter reads and
     * writes.
     */
    @SuppressWarnings("unchecked")
    public Class<Object> storedType() {
        return (Class<Object>) (config.callOptions().outcomeFilter() == null ? StoredBytes.class
                : StoredResponse.class);
    }

    /**
     * What the engine stores of a response to be stored, as {@link #storedType()} says: what the
     * response filter keeps of it, if there is one.
     *
     * @throws OutcomeNotStoredException if the response filter fails (the engine stores that, and the
     *     handler does not run again)
     */
    public Object stored(IdempotencyKey key, StoredResponse response) {
        if (config.callOptions().outcomeFilter() != null) {
            return response;
        }
        return (filter == null ? response : filter.keep(key, response)).toStored();
    }

    /**
     * What the engine stores of a captured response.
     *
     * @throws UnstoredResponse if the storage policy refuses it (the key is then released and it is sent as it is)
     */
    public StoredResponse toStore(StoredResponse captured) throws UnstoredResponse {
        if (!config.storagePolicy().stores(captured.status())) {
            throw new UnstoredResponse(captured);
        }
        return captured.withHeadersOnly(config.storedHeaders());
    }

    /**
     * The reply to a call the engine answered: a replay (the stored frame, its body sent as it was
     * stored, unless the response filter rebuilds it), or the handler's own response ({@code sent}).
     * A replay the filter cannot rebuild is answered as {@link #failed} answers it.
     */
    public Reply answered(HandlerExecution.Call call, Result<?> result, StoredResponse sent) {
        if (result.replayed()) {
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put(HttpIdempotency.IDEMPOTENCY_STATUS, "replayed");
            extra.put(HttpIdempotency.IDEMPOTENT_REPLAYED, "true");
            Object stored = result.value();
            StoredResponse response = stored instanceof StoredResponse r ? r
                    : StoredResponse.fromStored((StoredBytes) stored);
            if (filter != null) {
                try {
                    response = filter.rebuild(call.key(), response);
                } catch (OutcomeUnreadableException e) {
                    return failed(call, e);
                }
            }
            return new Reply(response, extra);
        }
        return new Reply(sent, result.stored() ? Map.of(HttpIdempotency.IDEMPOTENCY_STATUS, "stored") : Map.of());
    }

    /** The reply to a call that failed with {@code e}: a refused response as it is, or a problem. */
    public Reply failed(HandlerExecution.Call call, Throwable e) {
        Throwable cause = e instanceof WorkFailedException ? e.getCause() : e;
        if (cause instanceof UnstoredResponse u) {
            return new Reply(u.response(), Map.of());
        }
        StoredResponse problem = e instanceof Exception x ? problemFor(x) : null;
        if (problem == null) {
            // The handler threw (its key was released) or something unexpected failed: answer
            // openly rather than let the server drop the connection.
            LOG.log(System.Logger.Level.WARNING, "the handler for an idempotent " + call.key().operation()
                    + " request failed; answering 500", cause);
            problem = Problem.of(500, "handler-failed", "Internal server error",
                    "the request failed and its outcome was not stored");
        }
        return new Reply(problem, Map.of());
    }

    private void run(Exchange ex, HandlerExecution.Call call, byte[] body) throws Exception {
        AtomicReference<StoredResponse> sent = new AtomicReference<>();
        Reply reply;
        try {
            Result<Object> result = config.execution().execute(call, storedType(), ctx -> {
                StoredResponse captured = ex.proceed(body, ctx, responseCap);
                sent.set(captured);
                return stored(call.key(), toStore(captured));
            });
            reply = answered(call, result, sent.get());
        } catch (Exception e) {
            reply = failed(call, e);
        }
        send(ex, reply);
    }

    private static void send(Exchange ex, Reply reply) throws IOException {
        ex.send(reply.response(), reply.extraHeaders());
    }

    /** The problem for an engine failure, or null if it is not one this contract answers. */
    StoredResponse problemFor(Exception e) {
        if (e instanceof KeyReusedException r) {
            return Problem.of(r.httpStatus(), "key-reused", "Idempotency-Key reused",
                    "this Idempotency-Key was already used with a different request");
        }
        if (e instanceof RequestInProgressException r) {
            return Problem.of(r.httpStatus(), "request-in-progress", "Request in progress",
                    "a request with this Idempotency-Key is still being processed; retry later", r.retryAfter(),
                    Map.of());
        }
        if (e instanceof LeaseLostException r) {
            // The handler outlived its lease and a retry took over: that retry's outcome stands.
            return Problem.of(r.httpStatus(), "request-in-progress", "Request taken over",
                    "this attempt outlived its lease and another attempt took over; retry to get its outcome",
                    Duration.ofSeconds(1), Map.of());
        }
        if (e instanceof DeadlineExceededException) {
            return deadlineExceeded();
        }
        if (e instanceof FinalFailureException r) {
            // The first call and its replays get the same answer (same slug, kept for compatibility).
            return Problem.of(r.httpStatus(), "replayed-failure", "Request failed", r.detail(), null, Map.of("code", r.code()));
        }
        if (e instanceof OutcomeUnreadableException r) {
            // The key id and the reason are for the operator, not the client.
            LOG.log(System.Logger.Level.WARNING, "the stored response of an idempotent " + r.key().operation()
                    + " request cannot be read (" + r.reason() + (r.keyId() == null ? "" : ", key id " + r.keyId())
                    + "); answering 500 outcome-unreadable");
            return Problem.of(r.httpStatus(), "outcome-unreadable", "Stored outcome unreadable",
                    "the request was processed but its stored response cannot be read; it will not be processed"
                            + " again");
        }
        if (e instanceof OutcomeNotStoredException r) {
            return Problem.of(r.httpStatus(), "outcome-not-stored", "Outcome not stored",
                    "the request was processed but its response could not be stored; it will not be processed again");
        }
        if (e instanceof StoreUnavailableException r) {
            return Problem.of(r.httpStatus(), "store-unavailable", "Service unavailable",
                    "the idempotency store is unavailable; retry later", config.storeRetryAfter(), Map.of());
        }
        if (e instanceof dev.idem.engine.AsyncCallsFullException r) {
            // Nothing was claimed or run: the same request may come back once the burst has passed.
            return Problem.of(r.httpStatus(), "too-busy", "Service unavailable",
                    "too many idempotent requests are in flight; retry later", config.storeRetryAfter(), Map.of());
        }
        if (e instanceof InvalidRequestException r) {
            return invalidRequest(r);
        }
        if (e instanceof IdempotencyException r && r.httpStatus() < 500) {
            return Problem.of(r.httpStatus(), "idempotency-error", "Idempotency error", r.getMessage());
        }
        return null;
    }

    private static StoredResponse invalidRequest(InvalidRequestException e) {
        return e.tooLarge()
                ? Problem.of(e.httpStatus(), "request-too-large", "Request too large", e.getMessage())
                : Problem.of(e.httpStatus(), "invalid-request", "Malformed request body", e.getMessage());
    }

    /**
     * Answers before the handler saw the request. The body is read first: a server that
     * answers with the body still unread may drop the connection without saying so, and the
     * client's next request on it fails. What cannot be drained closes the connection openly.
     */
    private void rejectUnread(Exchange ex, StoredResponse problem) throws IOException {
        byte[] unread = ex.readBody(config.maxBodyBytes());
        ex.send(problem, rejectionHeaders(unread));
    }

    /**
     * The SHA-256 of method, canonical path, query, and the body: canonical JSON for a JSON media type
     * (so key order and whitespace do not matter), the raw bytes otherwise. Length-prefixed,
     * so no two requests share material. The engine gets the digest, not the material, so
     * only {@code maxBodyBytes} limits the body (not also the engine's request limit).
     */
    private byte[] fingerprintMaterial(IncomingRequest request, String path, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 128);
        out.writeBytes(DOMAIN);
        field(out, request.method().getBytes(StandardCharsets.UTF_8));
        field(out, path.getBytes(StandardCharsets.UTF_8));
        field(out, request.query().getBytes(StandardCharsets.UTF_8));
        if (body.length > 0 && MediaTypes.isJson(request.header("Content-Type").orElse(""))) {
            out.write('J');
            field(out, CanonicalJson.canonicalize(body, config.excludedFromFingerprint()));
        } else {
            out.write('B');
            field(out, body);
        }
        return Digests.sha256().digest(out.toByteArray());
    }

    private static void field(ByteArrayOutputStream out, byte[] bytes) {
        int n = bytes.length;
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
        out.writeBytes(bytes);
    }
}
