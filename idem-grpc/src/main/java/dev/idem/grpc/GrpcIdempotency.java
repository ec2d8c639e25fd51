package dev.idem.grpc;

import com.google.protobuf.util.JsonFormat;
import dev.idem.engine.CallOptions;
import dev.idem.engine.CanonicalJson;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The idempotency contract of unary gRPC methods, configured once and shared by every call: how
 * the caller is named, which methods require a key, which answers are stored, what the fingerprint
 * leaves out. Immutable and thread-safe. Install it on a service with {@link #intercept(BindableService)}
 * (every method must be unary) or {@link #intercept(BindableService, String...)} (the named unary
 * methods only); {@link #serverInterceptor()} is the interceptor itself, for a server-wide chain.
 *
 * <p>A covered call carrying {@value #KEY_HEADER} runs its handler at most once per key through the
 * engine: the key is scoped by the caller ({@link CallerResolver}) and the full method name
 * ({@code package.Service/Method}); the fingerprint is taken of the request message (the RFC 8785
 * canonical form of its proto3 JSON mapping, so clients of any protobuf version or language agree);
 * the call's gRPC deadline is the engine call's deadline. The handler's answer (headers, response
 * message, status, trailers) is stored when the {@link StatusStoragePolicy} says so, and every retry
 * gets it back exactly, with the trailer {@value #STATUS_HEADER}{@code : replayed}. The status of
 * each refusal, and whether a client retry policy may retry it, is in the module README's table;
 * refusals that no retry can change carry {@code grpc-retry-pushback-ms: -1}, so that even a retry
 * policy that lists their code does not retry them.
 */
public final class GrpcIdempotency {
    /** The request header carrying the client's key, {@value}: the syntax and limits of HTTP's {@code Idempotency-Key}. */
    public static final String KEY_HEADER = "idempotency-key";
    /** Response trailer: {@code stored} on the first answer whose outcome was stored, {@code replayed} on replays. */
    public static final String STATUS_HEADER = "idempotency-status";
    /** Response trailer naming why a call was refused ({@code key-reused}, {@code request-in-progress}, ...). */
    public static final String ERROR_HEADER = "idempotency-error";
    /** Response trailer carrying the code of a final failure. */
    public static final String FAILURE_CODE_HEADER = "idempotency-failure-code";
    /** gRPC's server pushback trailer (gRFC A6): milliseconds before a retry, or negative for none. */
    public static final String PUSHBACK_HEADER = "grpc-retry-pushback-ms";

    /** {@value #KEY_HEADER} as a metadata key. */
    public static final Metadata.Key<String> KEY = Metadata.Key.of(KEY_HEADER, Metadata.ASCII_STRING_MARSHALLER);
    /** {@value #STATUS_HEADER} as a metadata key. */
    public static final Metadata.Key<String> STATUS = Metadata.Key.of(STATUS_HEADER, Metadata.ASCII_STRING_MARSHALLER);
    /** {@value #ERROR_HEADER} as a metadata key. */
    public static final Metadata.Key<String> ERROR = Metadata.Key.of(ERROR_HEADER, Metadata.ASCII_STRING_MARSHALLER);
    /** {@value #FAILURE_CODE_HEADER} as a metadata key. */
    public static final Metadata.Key<String> FAILURE_CODE = Metadata.Key.of(FAILURE_CODE_HEADER,
            Metadata.ASCII_STRING_MARSHALLER);
    /** {@value #PUSHBACK_HEADER} as a metadata key. */
    public static final Metadata.Key<String> PUSHBACK = Metadata.Key.of(PUSHBACK_HEADER,
            Metadata.ASCII_STRING_MARSHALLER);

    /**
     * The running execution (its {@code downstreamKey()}, fencing token, deadline, steps), in the
     * {@link io.grpc.Context} the handler of a covered call runs in; see {@link #executionContext()}.
     */
    public static final Context.Key<ExecutionContext> EXECUTION_CONTEXT = Context.key("idem-execution-context");

    private final IdempotencyEngine engine;
    private final CallerResolver callers;
    private final Predicate<String> keyRequired;
    private final StatusStoragePolicy storagePolicy;
    private final List<String> excluded;
    private final JsonFormat.TypeRegistry typeRegistry;
    private final CallOptions callOptions;
    private final Duration storeRetryAfter;
    private final IdempotentServerInterceptor interceptor;

    private GrpcIdempotency(Builder b) {
        this.engine = b.engine;
        this.callers = b.callers;
        this.keyRequired = b.keyRequired;
        this.storagePolicy = b.storagePolicy;
        this.excluded = List.copyOf(b.excluded);
        this.typeRegistry = b.typeRegistry;
        this.callOptions = b.callOptions;
        this.storeRetryAfter = b.storeRetryAfter;
        this.interceptor = new IdempotentServerInterceptor(this);
    }

    /**
     * A builder; the engine and the {@link Builder#callers callers} are required.
     *
     * @param engine the engine that runs the handlers
     * @return the builder
     */
    public static Builder builder(IdempotencyEngine engine) {
        return new Builder(engine);
    }

    /**
     * The execution a covered call's handler runs in, read from the current {@link io.grpc.Context}:
     * for its {@code downstreamKey()} (pass it to the payment provider so it deduplicates too) or its
     * deadline.
     *
     * @return the running execution, or empty outside a covered handler
     */
    public static Optional<ExecutionContext> executionContext() {
        return Optional.ofNullable(EXECUTION_CONTEXT.get());
    }

    /**
     * The engine that runs the handlers.
     *
     * @return the engine
     */
    public IdempotencyEngine engine() {
        return engine;
    }

    /**
     * Names the caller of each call.
     *
     * @return the caller resolver
     */
    public CallerResolver callers() {
        return callers;
    }

    /**
     * Whether a call of {@code fullMethodName} without a key is refused ({@code INVALID_ARGUMENT})
     * rather than passed through untouched.
     *
     * @param fullMethodName {@code package.Service/Method}
     * @return whether the method requires a key
     */
    public boolean keyRequired(String fullMethodName) {
        return keyRequired.test(fullMethodName);
    }

    /**
     * Which answers are stored.
     *
     * @return the storage policy
     */
    public StatusStoragePolicy storagePolicy() {
        return storagePolicy;
    }

    /**
     * JSON Pointers (RFC 6901, over the message's proto3 JSON mapping with the field names of the
     * .proto file) left out of the fingerprint.
     *
     * @return the excluded pointers
     */
    public List<String> excludedFromFingerprint() {
        return excluded;
    }

    /**
     * The types {@code google.protobuf.Any} fields of requests may hold, for their fingerprint.
     *
     * @return the type registry
     */
    public JsonFormat.TypeRegistry typeRegistry() {
        return typeRegistry;
    }

    /**
     * The engine options of every covered call (TTL, lease, in-progress policy); each call's
     * deadline is added from its gRPC deadline.
     *
     * @return the call options
     */
    public CallOptions callOptions() {
        return callOptions;
    }

    /**
     * The pushback ({@value #PUSHBACK_HEADER}) sent with {@code UNAVAILABLE} when the store is unavailable.
     *
     * @return the pushback
     */
    public Duration storeRetryAfter() {
        return storeRetryAfter;
    }

    /**
     * The server interceptor of this contract, for a chain of your own (for example
     * {@code ServerBuilder.intercept}). Prefer {@link #intercept(BindableService)}, which checks at
     * registration that the methods are unary: a streaming call that reaches this interceptor with
     * a key is refused with {@code UNIMPLEMENTED}, and one without a key passes through untouched.
     *
     * @return the interceptor
     */
    public IdempotentServerInterceptor serverInterceptor() {
        return interceptor;
    }

    /**
     * Every method of {@code service}, each run through the contract.
     *
     * @param service the service implementation
     * @return the service definition to add to the server
     * @throws IllegalArgumentException if a method is streaming (client, server or bidirectional),
     *     naming it: streaming methods cannot be idempotent here; wrap the unary ones by name
     */
    public ServerServiceDefinition intercept(BindableService service) {
        return intercept(Objects.requireNonNull(service, "service").bindService());
    }

    /**
     * Every method of {@code service}, each run through the contract.
     *
     * @param service the service definition
     * @return the service definition to add to the server
     * @throws IllegalArgumentException if a method is streaming, naming it
     */
    public ServerServiceDefinition intercept(ServerServiceDefinition service) {
        Objects.requireNonNull(service, "service");
        List<String> names = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            names.add(m.getMethodDescriptor().getBareMethodName());
        }
        return intercept(service, names.toArray(String[]::new));
    }

    /**
     * The named methods of {@code service} run through the contract; its other methods are left as
     * they are.
     *
     * @param service the service implementation
     * @param methods bare method names, for example {@code "Charge"}
     * @return the service definition to add to the server
     * @throws IllegalArgumentException if a name is not a method of the service, or names a
     *     streaming method
     */
    public ServerServiceDefinition intercept(BindableService service, String... methods) {
        return intercept(Objects.requireNonNull(service, "service").bindService(), methods);
    }

    /**
     * The named methods of {@code service} run through the contract; its other methods are left as
     * they are.
     *
     * @param service the service definition
     * @param methods bare method names, for example {@code "Charge"}
     * @return the service definition to add to the server
     * @throws IllegalArgumentException if a name is not a method of the service, or names a
     *     streaming method
     */
    public ServerServiceDefinition intercept(ServerServiceDefinition service, String... methods) {
        Objects.requireNonNull(service, "service");
        String serviceName = service.getServiceDescriptor().getName();
        Set<String> wanted = new LinkedHashSet<>(List.of(methods));
        if (wanted.isEmpty()) {
            throw new IllegalArgumentException("name at least one method of " + serviceName);
        }
        Set<String> known = new HashSet<>();
        List<String> streaming = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            MethodDescriptor<?, ?> d = m.getMethodDescriptor();
            known.add(d.getBareMethodName());
            if (wanted.contains(d.getBareMethodName()) && d.getType() != MethodDescriptor.MethodType.UNARY) {
                streaming.add(d.getFullMethodName() + " (" + d.getType() + ")");
            }
        }
        for (String name : wanted) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException(serviceName + " has no method " + name + "; its methods are "
                        + known);
            }
        }
        if (!streaming.isEmpty()) {
            throw new IllegalArgumentException("only unary gRPC methods can be idempotent, but " + streaming
                    + (streaming.size() == 1 ? " is" : " are") + " streaming: a stream's answer is not one message"
                    + " that can be stored and replayed. Wrap the unary methods by name with intercept(service,"
                    + " \"Method\", ...) and leave the streaming ones out");
        }
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(service.getServiceDescriptor());
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            add(out, m, wanted.contains(m.getMethodDescriptor().getBareMethodName()));
        }
        return out.build();
    }

    private <ReqT, RespT> void add(ServerServiceDefinition.Builder out, ServerMethodDefinition<ReqT, RespT> method,
            boolean covered) {
        out.addMethod(covered ? wrap(method) : method);
    }

    private <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> wrap(ServerMethodDefinition<ReqT, RespT> method) {
        ServerCallHandler<ReqT, RespT> next = method.getServerCallHandler();
        ServerCallHandler<ReqT, RespT> handler = (call, headers) -> interceptor.interceptCall(call, headers, next);
        return method.withServerCallHandler(handler);
    }

    /** Validating builder: each setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final IdempotencyEngine engine;
        private CallerResolver callers;
        private Predicate<String> keyRequired = method -> true;
        private StatusStoragePolicy storagePolicy = StatusStoragePolicy.standard();
        private final List<String> excluded = new ArrayList<>();
        private JsonFormat.TypeRegistry typeRegistry = JsonFormat.TypeRegistry.getEmptyTypeRegistry();
        private CallOptions callOptions = CallOptions.defaults();
        private Duration storeRetryAfter = Duration.ofSeconds(1);
        private final Set<String> set = new HashSet<>();

        private Builder(IdempotencyEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * How each call's caller is named (required: gRPC has no standard principal).
         *
         * @param callers the resolver
         * @return this builder
         */
        public Builder callers(CallerResolver callers) {
            once("callers");
            this.callers = Objects.requireNonNull(callers, "callers");
            return this;
        }

        /**
         * Which methods require a key (default: all covered methods). A call of one of them without
         * a key is refused with {@code INVALID_ARGUMENT}; on the others it runs untouched.
         *
         * @param methodRequiresKey given the full method name, whether a key is required
         * @return this builder
         */
        public Builder keyRequired(Predicate<String> methodRequiresKey) {
            once("keyRequired");
            this.keyRequired = Objects.requireNonNull(methodRequiresKey, "keyRequired");
            return this;
        }

        /**
         * Which answers are stored (default {@link StatusStoragePolicy#standard()}).
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder storagePolicy(StatusStoragePolicy policy) {
            once("storagePolicy");
            this.storagePolicy = Objects.requireNonNull(policy, "storagePolicy");
            return this;
        }

        /**
         * Leaves these RFC 6901 JSON Pointers out of the request fingerprint, over the message's
         * proto3 JSON mapping with the .proto field names (for example {@code /client_time}).
         *
         * @param pointers the pointers
         * @return this builder
         * @throws IllegalArgumentException if a pointer is malformed or names the whole message
         */
        public Builder excludeFromFingerprint(String... pointers) {
            once("excludeFromFingerprint");
            List<String> list = List.of(pointers);
            CanonicalJson.canonicalize("{}".getBytes(StandardCharsets.UTF_8), list);
            excluded.addAll(list);
            return this;
        }

        /**
         * The message types {@code google.protobuf.Any} fields of requests may hold (default none:
         * a request with an {@code Any} is refused with {@code INTERNAL}, since its fingerprint
         * cannot be taken).
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder typeRegistry(JsonFormat.TypeRegistry registry) {
            once("typeRegistry");
            this.typeRegistry = Objects.requireNonNull(registry, "typeRegistry");
            return this;
        }

        /**
         * The engine options of every covered call (TTL, lease, in-progress policy).
         *
         * @param options the options
         * @return this builder
         * @throws IllegalArgumentException if they carry a deadline (each call has its own, from its gRPC deadline)
         */
        public Builder callOptions(CallOptions options) {
            once("callOptions");
            Objects.requireNonNull(options, "callOptions");
            if (options.deadline() != null) {
                throw new IllegalArgumentException("callOptions must not carry a deadline: each call gets its own"
                        + " from its gRPC deadline");
            }
            this.callOptions = options;
            return this;
        }

        /**
         * The pushback sent with {@code UNAVAILABLE} when the store is unavailable (default 1 s).
         *
         * @param retryAfter the pushback, positive
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder storeRetryAfter(Duration retryAfter) {
            once("storeRetryAfter");
            Objects.requireNonNull(retryAfter, "storeRetryAfter");
            if (retryAfter.isNegative() || retryAfter.isZero()) {
                throw new IllegalArgumentException("storeRetryAfter must be positive but was " + retryAfter);
            }
            this.storeRetryAfter = retryAfter;
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         * @throws IllegalStateException if no {@link #callers} were set
         */
        public GrpcIdempotency build() {
            if (callers == null) {
                throw new IllegalStateException("callers must be set: a key is scoped by its caller, and gRPC has no"
                        + " standard principal (CallerResolver.contextKey for an authentication interceptor's"
                        + " Context key, trustedHeader behind a gateway, fixed for a single client)");
            }
            return new GrpcIdempotency(this);
        }
    }
}
