package dev.idem.grpc;

import dev.idem.api.CallerScope;
import dev.idem.api.DeadlineExceededException;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.time.Deadline;
import dev.idem.engine.AsyncCallsFullException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.Result;
import dev.idem.engine.StoredBytes;
import dev.idem.engine.WorkFailedException;
import dev.idem.grpc.internal.CapturingCall;
import dev.idem.grpc.internal.MessageFingerprint;
import dev.idem.grpc.internal.ResponseFrame;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs each keyed call of a unary method through the engine, once per key, and answers every copy
 * with the first copy's answer: the {@link ServerInterceptor} of a {@link GrpcIdempotency}
 * ({@link GrpcIdempotency#serverInterceptor()}; {@link GrpcIdempotency#intercept} installs it).
 *
 * <p>Per call: the key is read from {@value GrpcIdempotency#KEY_HEADER} ({@link IdempotencyKeyHeader}'s
 * syntax and limits), the caller named, the deadline taken from the call's {@link Context}; the
 * request message is fingerprinted when it arrives; then, on the call's own thread (with its
 * {@code Context} and whatever thread-bound state the interceptors in front of this one set), the
 * engine claims the key and the handler runs on a {@link ServerCall} that captures its answer. That
 * thread blocks while the store is called and while the handler runs, as a blocking service's
 * does; a handler that answers later from another thread is waited for. The captured answer is
 * stored (when the {@link StatusStoragePolicy} allows) before it is sent.
 *
 * <p>The handler's call is not cancelled when the client goes away: it runs to its answer, which
 * is stored for the retry (its {@code Context} still shows the cancellation). Its listener hears
 * of completion or cancellation only after it has answered.
 */
public final class IdempotentServerInterceptor implements ServerInterceptor {
    private static final System.Logger LOG = System.getLogger(IdempotentServerInterceptor.class.getName());
    private static final Set<String> OWN_ENTRIES = Set.of(GrpcIdempotency.STATUS_HEADER,
            GrpcIdempotency.ERROR_HEADER);
    private static final ServerCall.Listener<Object> NOTHING = new ServerCall.Listener<>() {
    };

    private final GrpcIdempotency config;
    private final MessageFingerprint fingerprint;

    IdempotentServerInterceptor(GrpcIdempotency config) {
        this.config = config;
        this.fingerprint = new MessageFingerprint(config.typeRegistry(), config.excludedFromFingerprint());
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
            ServerCallHandler<ReqT, RespT> next) {
        MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
        String fullName = method.getFullMethodName();
        String token;
        try {
            token = IdempotencyKeyHeader.parse(values(headers.getAll(GrpcIdempotency.KEY))).orElse(null);
        } catch (InvalidIdempotencyKeyException e) {
            return refuse(call, Refusal.noRetry(Status.INVALID_ARGUMENT, "invalid-key", e.getMessage()));
        }
        if (method.getType() != MethodDescriptor.MethodType.UNARY) {
            if (token == null) {
                return next.startCall(call, headers);
            }
            return refuse(call, Refusal.noRetry(Status.UNIMPLEMENTED, "streaming-not-supported", fullName + " is a "
                    + method.getType() + " method; only unary methods can be idempotent"));
        }
        if (token == null) {
            if (!config.keyRequired(fullName)) {
                return next.startCall(call, headers);
            }
            return refuse(call, Refusal.noRetry(Status.INVALID_ARGUMENT, "missing-key", fullName
                    + " requires an " + GrpcIdempotency.KEY_HEADER + " header"));
        }
        Optional<String> scope = config.callers().scope(call, headers);
        if (scope.isEmpty()) {
            return refuse(call, Refusal.noRetry(Status.UNAUTHENTICATED, "unauthenticated",
                    "an idempotent call needs an authenticated caller to scope its key"));
        }
        Deadline deadline = deadlineOf(Context.current());
        if (deadline != null && deadline.isExpired()) {
            return refuse(call, deadlineExceeded());
        }
        IdempotencyKey key = IdempotencyKey.of(scope.get(), CallerScope.of(fullName), token);
        call.request(2);
        return new KeyedCall<>(call, headers, next, key, deadline);
    }

    /** The deadline of the call whose context this is, counted from now on the engine's ticker; null without one. */
    private Deadline deadlineOf(Context context) {
        io.grpc.Deadline d = context.getDeadline();
        if (d == null) {
            return null;
        }
        return Deadline.after(Duration.ofNanos(d.timeRemaining(TimeUnit.NANOSECONDS)), config.engine().ticker());
    }

    /** The call's single request message, then the engine. */
    private final class KeyedCall<ReqT, RespT> extends ServerCall.Listener<ReqT> {
        private final ServerCall<ReqT, RespT> call;
        private final Metadata headers;
        private final ServerCallHandler<ReqT, RespT> next;
        private final IdempotencyKey key;
        private final Deadline deadline;
        private ReqT request;
        private boolean closed;
        private volatile ServerCall.Listener<ReqT> handler;
        private volatile boolean answered;
        private volatile Boolean ended;

        KeyedCall(ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next,
                IdempotencyKey key, Deadline deadline) {
            this.call = call;
            this.headers = headers;
            this.next = next;
            this.key = key;
            this.deadline = deadline;
        }

        @Override
        public void onMessage(ReqT message) {
            if (closed) {
                return;
            }
            if (request != null) {
                // As grpc-java's own unary handler answers a client that breaks the protocol.
                closed = true;
                call.close(Status.INTERNAL.withDescription("Too many requests"), new Metadata());
                return;
            }
            request = message;
        }

        @Override
        public void onHalfClose() {
            if (closed) {
                return;
            }
            closed = true;
            if (request == null) {
                call.close(Status.INTERNAL.withDescription("Half-closed without a request"), new Metadata());
                return;
            }
            run();
        }

        @Override
        public void onCancel() {
            ended = false;
            tellHandler();
        }

        @Override
        public void onComplete() {
            ended = true;
            tellHandler();
        }

        /** The handler hears how the call ended only once it has answered. */
        private void tellHandler() {
            ServerCall.Listener<ReqT> h = handler;
            Boolean how = ended;
            if (h == null || !answered || how == null) {
                return;
            }
            try {
                if (how) {
                    h.onComplete();
                } else {
                    h.onCancel();
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "a handler's listener failed on completion", e);
            }
        }

        private void run() {
            MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
            byte[] material;
            try {
                material = fingerprint.digest(method, request);
            } catch (MessageFingerprint.UnprintableMessageException e) {
                LOG.log(System.Logger.Level.WARNING, e.getMessage());
                send(Refusal.noRetry(Status.INTERNAL, "fingerprint-failed", "the request's fingerprint cannot be"
                        + " taken; it was not processed"));
                return;
            }
            CallOptions options = deadline == null ? config.callOptions() : config.callOptions().withDeadline(deadline);
            List<CapturingCall.Captured<RespT>> first = new ArrayList<>(1);
            try {
                Result<StoredBytes> result = config.engine().execute(key, material, StoredBytes.class, options,
                        ctx -> {
                            CapturingCall.Captured<RespT> captured = runHandler(ctx);
                            first.add(captured);
                            if (!config.storagePolicy().stores(captured.status().getCode())) {
                                throw new UnstoredAnswer(captured.status().getCode());
                            }
                            return StoredBytes.wrap(frameOf(method, captured).encode(OWN_ENTRIES));
                        });
                if (result.replayed()) {
                    replay(method, ResponseFrame.decode(result.value().toByteArray()));
                } else {
                    sendCaptured(first.get(0), result.stored() ? "stored" : null);
                }
            } catch (Exception e) {
                Throwable cause = e instanceof WorkFailedException ? e.getCause() : e;
                if (cause instanceof UnstoredAnswer && !first.isEmpty()) {
                    sendCaptured(first.get(0), null);
                    return;
                }
                send(refusalFor(e));
            } finally {
                answered = true;
                tellHandler();
            }
        }

        /** Starts the rest of the chain on a capturing call, hands it the request and waits for its answer. */
        private CapturingCall.Captured<RespT> runHandler(ExecutionContext execution) throws Exception {
            CapturingCall<ReqT, RespT> capture = new CapturingCall<>(call);
            Context context = Context.current().withValue(GrpcIdempotency.EXECUTION_CONTEXT, execution);
            Context previous = context.attach();
            try {
                ServerCall.Listener<ReqT> listener = next.startCall(capture, headers);
                handler = listener;
                listener.onReady();
                listener.onMessage(request);
                listener.onHalfClose();
            } finally {
                context.detach(previous);
            }
            try {
                return capture.closed().get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the handler's answer was lost", e.getCause());
            }
        }

        private void sendCaptured(CapturingCall.Captured<RespT> captured, String status) {
            try {
                if (captured.compression() != null) {
                    call.setCompression(captured.compression());
                }
                if (captured.headers() != null || captured.message() != null) {
                    call.sendHeaders(captured.headers() != null ? captured.headers() : new Metadata());
                }
                if (captured.message() != null) {
                    call.setMessageCompression(captured.messageCompression());
                    call.sendMessage(captured.message());
                }
                Metadata trailers = new Metadata();
                trailers.merge(captured.trailers());
                if (status != null) {
                    trailers.put(GrpcIdempotency.STATUS, status);
                }
                call.close(captured.status(), trailers);
            } catch (RuntimeException e) {
                // The client left, or the transport failed; the answer is stored all the same.
                LOG.log(System.Logger.Level.DEBUG, "sending an idempotent call's answer failed", e);
            }
        }

        private void replay(MethodDescriptor<ReqT, RespT> method, ResponseFrame frame) {
            try {
                if (frame.headers() != null || frame.message() != null) {
                    call.sendHeaders(frame.headers() != null ? frame.headers() : new Metadata());
                }
                if (frame.message() != null) {
                    call.sendMessage(method.parseResponse(new ByteArrayInputStream(frame.message())));
                }
                Metadata trailers = frame.trailers();
                trailers.put(GrpcIdempotency.STATUS, "replayed");
                call.close(frame.status(), trailers);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "sending a replayed answer failed", e);
            }
        }

        private void send(Refusal refusal) {
            try {
                call.close(refusal.status(), refusal.trailers());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "sending a refusal failed", e);
            }
        }

        private Refusal refusalFor(Exception e) {
            Throwable cause = e instanceof WorkFailedException ? e.getCause() : e;
            Refusal refusal = cause instanceof Exception x ? mapped(x) : null;
            if (refusal != null) {
                return refusal;
            }
            LOG.log(System.Logger.Level.WARNING, "the handler of an idempotent call of " + key.operation()
                    + " failed; the key is released and the call answered UNKNOWN", cause);
            return new Refusal(Status.UNKNOWN.withDescription("Application error processing RPC"),
                    refusalTrailers("handler-failed", null));
        }
    }

    /** What a call is refused with: a status and its trailers. */
    private record Refusal(Status status, Metadata trailers) {
        /** A refusal no retry changes: a retry policy is told not to retry it whatever its codes. */
        static Refusal noRetry(Status status, String error, String description) {
            return new Refusal(status.withDescription(description), refusalTrailers(error, Duration.ofMillis(-1)));
        }

        /** A refusal the same call may be sent again for, after {@code pushback}. */
        static Refusal retryable(Status status, String error, String description, Duration pushback) {
            return new Refusal(status.withDescription(description), refusalTrailers(error, pushback));
        }
    }

    private static Metadata refusalTrailers(String error, Duration pushback) {
        Metadata trailers = new Metadata();
        trailers.put(GrpcIdempotency.ERROR, error);
        if (pushback != null) {
            trailers.put(GrpcIdempotency.PUSHBACK, pushback.isNegative() ? "-1"
                    : Long.toString(Math.min(Integer.MAX_VALUE, Math.max(0, pushback.toMillis()))));
        }
        return trailers;
    }

    private Refusal deadlineExceeded() {
        return Refusal.noRetry(Status.DEADLINE_EXCEEDED, "deadline-exceeded", "the call's deadline ran out before it"
                + " was processed; nothing ran and nothing was stored");
    }

    /** The refusal for an engine failure, or null if it is not one of the contract's. */
    private Refusal mapped(Exception e) {
        if (e instanceof KeyReusedException) {
            return Refusal.noRetry(Status.FAILED_PRECONDITION, "key-reused", "this " + GrpcIdempotency.KEY_HEADER
                    + " was already used with a different request");
        }
        if (e instanceof RequestInProgressException r) {
            return Refusal.retryable(Status.UNAVAILABLE, "request-in-progress", "a call with this "
                    + GrpcIdempotency.KEY_HEADER + " is still being processed; retry later", r.retryAfter());
        }
        if (e instanceof LeaseLostException) {
            return Refusal.retryable(Status.UNAVAILABLE, "request-in-progress", "this attempt outlived its lease and"
                    + " another attempt took over; retry to get its answer", Duration.ofSeconds(1));
        }
        if (e instanceof DeadlineExceededException) {
            return deadlineExceeded();
        }
        if (e instanceof FinalFailureException f) {
            Refusal refusal = Refusal.noRetry(Status.FAILED_PRECONDITION, "replayed-failure", f.detail());
            refusal.trailers().put(GrpcIdempotency.FAILURE_CODE, asciiOnly(f.code()));
            return refusal;
        }
        if (e instanceof OutcomeUnreadableException r) {
            LOG.log(System.Logger.Level.WARNING, "the stored answer of an idempotent call of " + r.key().operation()
                    + " cannot be read (" + r.reason() + (r.keyId() == null ? "" : ", key id " + r.keyId())
                    + "); answering INTERNAL outcome-unreadable");
            return Refusal.noRetry(Status.INTERNAL, "outcome-unreadable", "the call was processed but its stored"
                    + " answer cannot be read; it will not be processed again");
        }
        if (e instanceof OutcomeNotStoredException) {
            return Refusal.noRetry(Status.INTERNAL, "outcome-not-stored", "the call was processed but its answer"
                    + " could not be stored; it will not be processed again");
        }
        if (e instanceof StoreUnavailableException) {
            return Refusal.retryable(Status.UNAVAILABLE, "store-unavailable", "the idempotency store is unavailable;"
                    + " retry later", config.storeRetryAfter());
        }
        if (e instanceof AsyncCallsFullException) {
            return Refusal.retryable(Status.UNAVAILABLE, "too-busy", "too many idempotent calls are in flight;"
                    + " retry later", config.storeRetryAfter());
        }
        if (e instanceof InvalidIdempotencyKeyException) {
            return Refusal.noRetry(Status.INVALID_ARGUMENT, "invalid-key", e.getMessage());
        }
        if (e instanceof IdempotencyException r && r.httpStatus() < 500) {
            return Refusal.noRetry(Status.INVALID_ARGUMENT, "idempotency-error", r.getMessage());
        }
        return null;
    }

    private static String asciiOnly(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return out.toString();
    }

    private static <RespT> ResponseFrame frameOf(MethodDescriptor<?, RespT> method,
            CapturingCall.Captured<RespT> captured) throws IOException {
        byte[] message = null;
        if (captured.message() != null) {
            try (InputStream in = method.streamResponse(captured.message())) {
                message = in.readAllBytes();
            }
        }
        return new ResponseFrame(captured.headers(), message, captured.status(), captured.trailers());
    }

    @SuppressWarnings("unchecked")
    private static <ReqT> ServerCall.Listener<ReqT> refuse(ServerCall<?, ?> call, Refusal refusal) {
        call.close(refusal.status(), refusal.trailers());
        return (ServerCall.Listener<ReqT>) NOTHING;
    }

    private static List<String> values(Iterable<String> values) {
        List<String> out = new ArrayList<>(1);
        if (values != null) {
            values.forEach(out::add);
        }
        return out;
    }

    /** Carries an answer the storage policy refuses out of the engine's work, so the key is released. */
    private static final class UnstoredAnswer extends Exception {
        private static final long serialVersionUID = 1L;

        UnstoredAnswer(Status.Code code) {
            super("an answer with status " + code + " is not stored; the key is released", null, false, false);
        }
    }
}
