package dev.idem.http;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * How a covered request's handler is run once its key and fingerprint are known. The default,
 * {@link #engine(IdempotencyEngine)}, is {@link IdempotencyEngine#execute}. An integration may
 * run it differently as long as it keeps {@code execute}'s contract: a Spring application runs
 * it in a database transaction that also completes the record, and inside an observation named
 * after the route (the operation name is low-cardinality, the key is not). Reactive servers
 * call {@link #executeAsync}.
 */
public interface HandlerExecution {
    /**
     * Runs {@code work} at most once for {@code call.key()}, as {@link IdempotencyEngine#execute}
     * does, and returns the fresh or replayed result.
     *
     * @param <T> the result type
     * @param call what is being run
     * @param type the result type
     * @param work the handler
     * @return the result
     */
    <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work);

    /**
     * The asynchronous {@link #execute}, for reactive servers: runs {@code work} at most once for
     * {@code call.key()}, as {@link IdempotencyEngine#executeAsync(IdempotencyKey, Object, Class,
     * CallOptions, AsyncWork)} does. The default refuses (an execution written for blocking
     * servers only); {@link #engine(IdempotencyEngine)}'s runs the engine's asynchronous call.
     *
     * @param <T> the result type
     * @param call what is being run
     * @param type the result type
     * @param work the handler, returning a stage
     * @return the result, or the failure the engine's call completes with
     * @throws UnsupportedOperationException if this execution only runs blocking handlers
     */
    default <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type, AsyncWork<? extends T> work) {
        throw new UnsupportedOperationException(getClass().getName() + " runs blocking handlers only; a reactive"
                + " server needs a HandlerExecution that implements executeAsync");
    }

    /**
     * The default: {@code engine.execute(call.key(), call.fingerprint(), type, call.options(), work)}.
     *
     * @param engine the engine
     * @return the execution
     */
    static HandlerExecution engine(IdempotencyEngine engine) {
        Objects.requireNonNull(engine, "engine");
        return new HandlerExecution() {
            @Override
            public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
                return engine.execute(call.key(), call.fingerprint(), type, call.options(), work);
            }

            @Override
            public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type,
                    AsyncWork<? extends T> work) {
                return engine.executeAsync(call.key(), call.fingerprint(), type, call.options(), work);
            }
        };
    }

    /**
     * One covered request about to run.
     *
     * @param request the request line, headers and principal (and {@link IncomingRequest#unwrap} for the
     *     server's own request object)
     * @param route the route it matched ({@link RouteResolver}), for example {@code /orders/{id}}
     * @param operationName method and route, for example {@code POST /orders/{id}}: bounded, fit for a
     *     metric tag or a span name
     * @param path the request path in its canonical spelling (the one the key is scoped by)
     * @param key the idempotency key: the principal's scope, method and canonical path, the client's key
     * @param fingerprint what the engine fingerprints (a digest of method, path, query and body)
     * @param options the per-call engine options
     */
    record Call(IncomingRequest request, String route, String operationName, String path, IdempotencyKey key,
            byte[] fingerprint, CallOptions options) {
        /**
         * Checks that nothing is null.
         *
         * @param request the request
         * @param route the route
         * @param operationName method and route
         * @param path the canonical path
         * @param key the key
         * @param fingerprint the fingerprint material
         * @param options the options
         */
        public Call {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(route, "route");
            Objects.requireNonNull(operationName, "operationName");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(options, "options");
        }
    }
}
