package dev.idem.reactor;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.CallOptions;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactor's face of {@link IdempotencyEngine#executeAsync(IdempotencyKey, Object, Class,
 * dev.idem.engine.AsyncWork)}, with the same guarantees and answers as the blocking
 * {@code execute} (the guarantees table of docs/reference.md):
 *
 * <pre>{@code
 * ReactorIdempotency idem = ReactorIdempotency.of(engine);
 * Mono<Charge> charge = idem.call(key, request, Charge.class,
 *         ctx -> gateway.charge(request, ctx.downstreamKey()));     // a Mono<Charge>
 * }</pre>
 *
 * <ul>
 *   <li><b>Lazy</b>: nothing happens until a subscription; each subscription is one engine call
 *       (the first runs the work, a later one replays it).</li>
 *   <li><b>Once</b>: the work's {@code Mono} is subscribed to once per claim, by the engine; its
 *       value is stored and replayed, its error classified as the blocking call classifies an
 *       exception, and a subscriber gets the same (unwrapped) exception types.</li>
 *   <li><b>Context</b>: the subscriber's Reactor {@code Context} is written into the work's
 *       {@code Mono}, so what the work reads from it (a security context, a trace) is there.</li>
 *   <li><b>Empty</b>: a work {@code Mono} that completes empty stores null; {@link #call} then
 *       completes empty on every replay too.</li>
 *   <li><b>Cancellation</b>: cancelling the subscription cancels the engine call's answer, so it
 *       costs what a cancelled {@code executeAsync} costs: a waiting duplicate stops polling and
 *       returns its {@code maxAsyncCalls} slot at once; one whose claim is in the store gives back a
 *       key it won there without running the work; once the work's {@code Mono} is subscribed it goes
 *       on (it is not cancelled), the record ends by its outcome, and the slot is held until then.</li>
 *   <li><b>Flux</b>: {@link #executeMany} collects a finite {@code Flux} into a {@code List},
 *       stored and replayed whole (so it must fit the engine's outcome limit). Elements are kept
 *       only up to that limit (measured with the engine's JSON codec): past it the rest of the Flux
 *       is consumed but not kept, and the call ends as an outcome too large to store
 *       ({@link dev.idem.engine.OutcomeNotStoredException}, the work does not run again). An endless
 *       Flux never completes, and its key is kept only as long as the engine's {@code maxPendingWork}.</li>
 * </ul>
 * Store calls run on the engine's async executor, never on the subscriber's thread. Thread-safe.
 */
public final class ReactorIdempotency {
    private final IdempotencyEngine engine;

    private ReactorIdempotency(IdempotencyEngine engine) {
        this.engine = engine;
    }

    /**
     * Reactor calls over {@code engine}.
     *
     * @param engine the engine
     * @return the Reactor API
     */
    public static ReactorIdempotency of(IdempotencyEngine engine) {
        return new ReactorIdempotency(Objects.requireNonNull(engine, "engine"));
    }

    /**
     * A lazy {@code Mono} of the work's result and whether it was replayed.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation: a {@code Mono} of its result, subscribed to once per claim
     * @return the result, or the failure the blocking call would throw
     */
    public <T> Mono<Result<T>> execute(IdempotencyKey key, Object request, Class<T> type,
            Function<? super ExecutionContext, ? extends Mono<? extends T>> work) {
        return execute(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * Like {@link #execute(IdempotencyKey, Object, Class, Function)} with per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the result
     */
    public <T> Mono<Result<T>> execute(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            Function<? super ExecutionContext, ? extends Mono<? extends T>> work) {
        Objects.requireNonNull(type, "type");
        return defer(key, request, options, work, w -> engine.executeAsync(key, request, type, options, w));
    }

    /**
     * Like {@link #execute(IdempotencyKey, Object, Class, Function)} for a generic result type.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the result
     */
    public <T> Mono<Result<T>> execute(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, Function<? super ExecutionContext, ? extends Mono<? extends T>> work) {
        Objects.requireNonNull(type, "type");
        return defer(key, request, options, work, w -> engine.executeAsync(key, request, type, options, w));
    }

    /**
     * The value of {@link #execute(IdempotencyKey, Object, Class, Function)}: empty if the work's
     * {@code Mono} completed empty.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the value, now or replayed
     */
    public <T> Mono<T> call(IdempotencyKey key, Object request, Class<T> type,
            Function<? super ExecutionContext, ? extends Mono<? extends T>> work) {
        return execute(key, request, type, work).flatMap(r -> Mono.justOrEmpty(r.value()));
    }

    /**
     * Like {@link #call(IdempotencyKey, Object, Class, Function)} for a generic result type.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the value, now or replayed
     */
    public <T> Mono<T> call(IdempotencyKey key, Object request, TypeReference<T> type,
            Function<? super ExecutionContext, ? extends Mono<? extends T>> work) {
        return execute(key, request, type, CallOptions.defaults(), work).flatMap(r -> Mono.justOrEmpty(r.value()));
    }

    /**
     * Runs a finite {@code Flux}'s work once: its elements are collected into a list, which is
     * stored and replayed whole.
     *
     * @param <T> the element type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param elementType the type replayed elements decode to
     * @param options per-call overrides
     * @param work the operation: a finite {@code Flux}, subscribed to once per claim
     * @return the list and whether it was replayed
     */
    public <T> Mono<Result<List<T>>> executeMany(IdempotencyKey key, Object request, Class<T> elementType,
            CallOptions options, Function<? super ExecutionContext, ? extends Flux<? extends T>> work) {
        Objects.requireNonNull(elementType, "elementType");
        Objects.requireNonNull(work, "work");
        TypeReference<List<T>> listType = listOf(elementType);
        Function<ExecutionContext, Mono<List<T>>> collected = ctx -> {
            Flux<? extends T> flux = Objects.requireNonNull(work.apply(ctx),
                    () -> "the work for " + key + " returned null instead of a Flux");
            return flux.collect(() -> new BoundedList<T>(engine.jsonCodec(), engine.maxOutcomeBytes()),
                    BoundedList::add).flatMap(list -> list.result(ctx.key()));
        };
        return execute(key, request, listType, options, collected);
    }

    /**
     * The elements of {@link #executeMany}, now or replayed, in order.
     *
     * @param <T> the element type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param elementType the type replayed elements decode to
     * @param work the operation: a finite {@code Flux}
     * @return the elements
     */
    public <T> Flux<T> callMany(IdempotencyKey key, Object request, Class<T> elementType,
            Function<? super ExecutionContext, ? extends Flux<? extends T>> work) {
        return executeMany(key, request, elementType, CallOptions.defaults(), work)
                .flatMapIterable(r -> r.value() == null ? List.of() : r.value());
    }

    private <T> Mono<Result<T>> defer(IdempotencyKey key, Object request, CallOptions options,
            Function<? super ExecutionContext, ? extends Mono<? extends T>> work,
            Function<AsyncWork<T>, CompletableFuture<Result<T>>> call) {
        // Programming errors are refused when the Mono is built, as the engine refuses them at once.
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(work, "work");
        // Cancelling the subscription cancels the engine's answer (suppressCancel false), which stops a
        // waiting call and returns its slot; the work's own future below is never cancelled by it.
        return Mono.deferContextual(view -> Mono.fromFuture(() -> call.apply(ctx -> {
            @SuppressWarnings("unchecked") // a Mono only produces, so one of a subtype is one of T
            Mono<T> mono = (Mono<T>) Objects.requireNonNull(work.apply(ctx),
                    () -> "the work for " + key + " returned null instead of a Mono");
            // Subscribed once, here; the subscriber's cancellation does not reach it (see the class comment).
            return mono.contextWrite(view).toFuture();
        }), false));
    }

    private static <T> TypeReference<List<T>> listOf(Class<T> element) {
        ParameterizedType list = new ParameterizedType() {
            @Override
            public Type[] getActualTypeArguments() {
                return new Type[] {element};
            }

            @Override
            public Type getRawType() {
                return List.class;
            }

            @Override
            public Type getOwnerType() {
                return null;
            }

            @Override
            public String getTypeName() {
                return "java.util.List<" + element.getTypeName() + ">";
            }
        };
        return new TypeReference<>() {
            @Override
            public Type getType() {
                return list;
            }
        };
    }
}
