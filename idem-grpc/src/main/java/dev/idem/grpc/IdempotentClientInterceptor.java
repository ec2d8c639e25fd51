package dev.idem.grpc;

import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.time.Deadline;
import dev.idem.client.IdempotencyKeyGenerator;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Gives each logical unary call one idempotency key ({@value GrpcIdempotency#KEY_HEADER}), so that
 * a server running {@link GrpcIdempotency} runs it once however many copies reach it. Install it on
 * the channel ({@code ClientInterceptors.intercept(channel, interceptor)} or the channel builder's
 * {@code intercept}). Immutable and thread-safe.
 *
 * <p>The key is set once, when the call starts, in the metadata the call starts with. The
 * channel's transparent retries, its retry policy and its hedged copies all re-send that same
 * metadata below the interceptors, so every attempt and every copy of one call carries one key:
 * with this interceptor on, hedging and a retry policy on {@code UNAVAILABLE} are safe to turn on
 * for methods that change state. A new call (a retry the application makes itself) gets a new key,
 * unless it brings its own: a key in the call's options ({@link #KEY_OPTION}, for a key persisted
 * before a crash) or already in its metadata is kept.
 *
 * <p>Deadlines: a call made while an idem deadline is bound to the thread ({@link Deadline#current()},
 * as the engine binds one while work runs) gets that deadline when it is sooner than the call's own,
 * so a service called from an idempotent HTTP handler gets the time its own caller has left. (Inside
 * a gRPC handler the call's {@code Context} carries its deadline to outgoing calls already.)
 */
public final class IdempotentClientInterceptor implements ClientInterceptor {
    /**
     * The call option carrying a key chosen by the caller: {@code stub.withOption(KEY_OPTION, key)}.
     * The key must be 1 to 255 visible ASCII characters.
     */
    public static final CallOptions.Key<String> KEY_OPTION = CallOptions.Key.create("idem-idempotency-key");

    private final IdempotencyKeyGenerator keys;
    private final Predicate<MethodDescriptor<?, ?>> methods;

    private IdempotentClientInterceptor(IdempotencyKeyGenerator keys, Predicate<MethodDescriptor<?, ?>> methods) {
        this.keys = keys;
        this.methods = methods;
    }

    /**
     * Keys every unary call with a UUIDv7 ({@link IdempotencyKeyGenerator#uuidV7()}, as idem-client).
     *
     * @return the interceptor
     */
    public static IdempotentClientInterceptor create() {
        return builder().build();
    }

    /**
     * A builder: UUIDv7 keys, every unary method.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
            CallOptions callOptions, Channel next) {
        if (method.getType() != MethodDescriptor.MethodType.UNARY || !methods.test(method)) {
            return next.newCall(method, callOptions);
        }
        String chosen = callOptions.getOption(KEY_OPTION);
        if (chosen != null) {
            // Checked now, on the caller's thread, rather than refused by the server.
            IdempotencyKeyHeader.format(chosen);
        }
        CallOptions options = withBoundDeadline(callOptions);
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<RespT> responseListener, Metadata headers) {
                if (!headers.containsKey(GrpcIdempotency.KEY)) {
                    headers.put(GrpcIdempotency.KEY, chosen != null ? chosen : keys.newKey());
                }
                super.start(responseListener, headers);
            }
        };
    }

    private static CallOptions withBoundDeadline(CallOptions options) {
        Optional<Deadline> bound = Deadline.current();
        if (bound.isEmpty()) {
            return options;
        }
        long nanos = bound.get().remainingNanos();
        io.grpc.Deadline own = options.getDeadline();
        if (own != null && own.timeRemaining(TimeUnit.NANOSECONDS) <= nanos) {
            return options;
        }
        return options.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS);
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private IdempotencyKeyGenerator keys = IdempotencyKeyGenerator.uuidV7();
        private Predicate<MethodDescriptor<?, ?>> methods = m -> true;

        private Builder() {
        }

        /**
         * Where keys come from (default UUIDv7).
         *
         * @param generator the generator; its keys must be 1 to 255 visible ASCII characters
         * @return this builder
         */
        public Builder keyGenerator(IdempotencyKeyGenerator generator) {
            this.keys = Objects.requireNonNull(generator, "keyGenerator");
            return this;
        }

        /**
         * Which unary methods get a key (default all; streaming methods never do).
         *
         * @param methods given a method, whether its calls get a key
         * @return this builder
         */
        public Builder methods(Predicate<MethodDescriptor<?, ?>> methods) {
            this.methods = Objects.requireNonNull(methods, "methods");
            return this;
        }

        /**
         * Builds the interceptor.
         *
         * @return the interceptor
         */
        public IdempotentClientInterceptor build() {
            return new IdempotentClientInterceptor(keys, methods);
        }
    }
}
