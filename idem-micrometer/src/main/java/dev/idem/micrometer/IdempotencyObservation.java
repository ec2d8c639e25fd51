package dev.idem.micrometer;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.IdempotencyListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;

/**
 * idem through Micrometer's Observation API: one instrumentation that yields both metrics
 * (with a {@code DefaultMeterObservationHandler}) and traces (with Micrometer Tracing over Brave
 * or OpenTelemetry), with low-cardinality tags only.
 *
 * <pre>{@code
 * IdempotencyObservation observation = IdempotencyObservation.builder(observationRegistry).storeKind("jdbc").build();
 * IdempotencyEngine engine = IdempotencyEngine.builder()
 *         .store(observation.wrap(store))        // an idem.store observation per round trip
 *         .listener(observation.listener())     // outcomes onto the call's observation
 *         .build();
 * Result<Charge> r = observation.observe("POST /charges", key,
 *         () -> engine.execute(key, request, Charge.class, work));
 * }</pre>
 *
 * <h2>Observations</h2>
 * <ul>
 *   <li>{@value #EXECUTION}, one per observed engine call ({@link #observe}, or {@link #observeAsync}
 *       for {@code executeAsync}) (contextual name, so
 *       span name, {@code idem <operation>} in lower case): low-cardinality {@value #OPERATION} (the name the caller gave:
 *       a route template or an annotation's operation, never a raw path), {@value #OUTCOME}
 *       ({@link IdempotencyEvent.Type#outcome()}, or {@value #NO_OUTCOME} when the call failed
 *       before the engine decided, for example with the store down) and {@value #STORE_KIND};
 *       high-cardinality {@value #KEY_HASH}, {@value #ATTEMPT} and {@value #TAKEN_OVER}.</li>
 *   <li>{@value #STORE}, one per store round trip of a {@link #wrap wrapped} store, a child of
 *       the call's: {@value #STORE_OPERATION} ({@code claim}, {@code complete}, ...),
 *       {@value #STORE_KIND} and {@value #CLAIM_STATUS} ({@code ACQUIRED}, {@code TAKEN_OVER},
 *       {@code EXISTING}; {@code none} for other operations).</li>
 * </ul>
 * An engine call that is not observed (the engine called directly) still counts: each of its
 * events is recorded as a momentary {@value #EXECUTION} observation named after the key's
 * operation (bounded like {@link IdempotencyMetrics}' tag: past {@link Builder#maxOperations}
 * distinct operations they are named {@value IdempotencyMetrics#OTHER_OPERATION}), so counts are
 * right but durations are zero; observe the call to time it and name it after its route. The
 * scope (tenant) and the raw key are never recorded.
 *
 * <p>Thread-safe.
 */
public final class IdempotencyObservation {
    /** The observation of one engine call. */
    public static final String EXECUTION = "idem.execution";
    /** The observation of one store round trip. */
    public static final String STORE = "idem.store";
    /** Low-cardinality key: the bounded operation name. */
    public static final String OPERATION = "idem.operation";
    /** Low-cardinality key: the outcome. */
    public static final String OUTCOME = "idem.outcome";
    /** Low-cardinality key: the store's kind. */
    public static final String STORE_KIND = "idem.store.kind";
    /** Low-cardinality key of store observations: the store operation. */
    public static final String STORE_OPERATION = "idem.store.operation";
    /** Low-cardinality key of store observations: how a claim went. */
    public static final String CLAIM_STATUS = "idem.claim.status";
    /** High-cardinality key: the hash of scope, operation and key. */
    public static final String KEY_HASH = "idem.key.hash";
    /** High-cardinality key: the attempt number. */
    public static final String ATTEMPT = "idem.attempt";
    /** High-cardinality key: whether the call took over a lapsed lease. */
    public static final String TAKEN_OVER = "idem.lease.taken_over";
    /** The outcome of a call for which the engine reported none. */
    public static final String NO_OUTCOME = "none";

    private static final IdempotencyObservationConvention DEFAULT_CONVENTION = new IdempotencyObservationConvention();

    private final ObservationRegistry registry;
    private final String storeKind;
    private final IdempotencyObservationConvention convention;
    private final OperationBound operations;
    /** The observations of asynchronous calls in flight, by key: their events arrive on other threads. */
    private final Map<IdempotencyKey, Deque<IdempotencyObservationContext>> async = new ConcurrentHashMap<>();

    private IdempotencyObservation(Builder b) {
        this.registry = b.registry;
        this.storeKind = b.storeKind;
        this.convention = b.convention;
        this.operations = new OperationBound(b.maxOperations);
    }

    /**
     * A builder.
     *
     * @param registry the application's observation registry
     * @return a builder with the defaults: store kind {@code unknown}, the default convention
     */
    public static Builder builder(ObservationRegistry registry) {
        return new Builder(registry);
    }

    /**
     * Runs {@code call} (an engine call for {@code key}) inside an {@value #EXECUTION}
     * observation named {@code operationName}; the engine's events, delivered to
     * {@link #listener()} on this thread, fill in its outcome. An exception is recorded as the
     * observation's error and rethrown.
     *
     * @param <T> what the call returns
     * @param operationName a bounded name: a route template or an operation, never a raw path or an id
     * @param key the call's key (only its hash is recorded)
     * @param call the engine call
     * @return what the call returned
     */
    public <T> T observe(String operationName, IdempotencyKey key, Supplier<T> call) {
        Objects.requireNonNull(call, "call");
        IdempotencyObservationContext context = new IdempotencyObservationContext(operationName, storeKind, key);
        return Observation.createNotStarted(convention, DEFAULT_CONVENTION, () -> context, registry).observe(call);
    }

    /**
     * Runs {@code call}, an asynchronous engine call for {@code key} ({@code executeAsync}), inside
     * an {@value #EXECUTION} observation named {@code operationName} that ends when the call's
     * stage completes. The engine's events for {@code key} fill in its outcome, on whatever thread
     * they arrive; while several asynchronous calls of one key are in flight, an event goes to the
     * oldest of them that has no outcome yet (their names and tags are the same, only their
     * durations may be swapped). A failure is recorded as the observation's error.
     *
     * @param <T> what the call's stage completes with
     * @param operationName a bounded name: a route template or an operation, never a raw path or an id
     * @param key the call's key (only its hash is recorded)
     * @param call the engine call
     * @return a stage that completes as the call's does, once the observation is stopped
     */
    @SuppressWarnings("try") // the scope is held open around the call, never read by name
    public <T> CompletableFuture<T> observeAsync(String operationName, IdempotencyKey key,
            Supplier<? extends CompletionStage<T>> call) {
        Objects.requireNonNull(call, "call");
        IdempotencyObservationContext context = new IdempotencyObservationContext(operationName, storeKind, key);
        Observation observation = Observation.createNotStarted(convention, DEFAULT_CONVENTION, () -> context,
                registry).start();
        async.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>()).add(context);
        CompletionStage<T> stage;
        try (Observation.Scope scope = observation.openScope()) {
            stage = call.get();
        } catch (RuntimeException | Error e) {
            end(key, context, observation, e);
            throw e;
        }
        return stage.whenComplete((value, failure) -> end(key, context, observation, failure)).toCompletableFuture();
    }

    private void end(IdempotencyKey key, IdempotencyObservationContext context, Observation observation,
            Throwable failure) {
        async.computeIfPresent(key, (k, contexts) -> {
            contexts.remove(context);
            return contexts.isEmpty() ? null : contexts;
        });
        if (failure != null) {
            observation.error(failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure);
        }
        observation.stop();
    }

    /**
     * The listener to install on the engine: it records each event on the observation of its
     * call, or as a momentary observation when the call is not observed.
     *
     * @return the listener
     */
    public IdempotencyListener listener() {
        return this::onEvent;
    }

    /**
     * Wraps {@code store} so each round trip is an {@value #STORE} observation.
     *
     * @param store the store
     * @return the observed store; closing it closes {@code store}
     */
    public IdempotencyStore wrap(IdempotencyStore store) {
        return new ObservedIdempotencyStore(store, registry, storeKind);
    }

    private void onEvent(IdempotencyEvent event) {
        IdempotencyObservationContext context = current(event);
        boolean momentary = context == null;
        if (momentary) {
            context = new IdempotencyObservationContext(operations.tag(event.operation()), storeKind,
                    IdempotencyKey.of(event.scope(), event.operation(), event.key()));
        }
        if (event.type() == IdempotencyEvent.Type.LEASE_TAKEN_OVER) {
            context.takenOver(event.attempt());
            if (momentary) {
                context.outcome(event.type().outcome(), event.attempt());
            }
        } else {
            context.outcome(event.type().outcome(), event.attempt());
        }
        if (momentary) {
            IdempotencyObservationContext c = context;
            Observation.createNotStarted(convention, DEFAULT_CONVENTION, () -> c, registry).start().stop();
        }
    }

    /**
     * The observation of the call this event belongs to: searched from the current one up, else
     * the oldest asynchronous one of its key without an outcome.
     */
    private IdempotencyObservationContext current(IdempotencyEvent event) {
        IdempotencyObservationContext found = onThisThread(event);
        if (found != null || async.isEmpty()) {
            return found;
        }
        Deque<IdempotencyObservationContext> contexts = async.get(
                IdempotencyKey.of(event.scope(), event.operation(), event.key()));
        if (contexts == null) {
            return null;
        }
        IdempotencyObservationContext first = null;
        for (IdempotencyObservationContext c : contexts) {
            if (NO_OUTCOME.equals(c.outcome())) {
                return c;
            }
            first = first == null ? c : first;
        }
        return first;
    }

    private IdempotencyObservationContext onThisThread(IdempotencyEvent event) {
        Observation current = registry.getCurrentObservation();
        io.micrometer.observation.Observation.ContextView view = current == null ? null : current.getContextView();
        while (view != null) {
            if (view instanceof IdempotencyObservationContext c && c.isFor(event.scope(), event.operation(),
                    event.key())) {
                return c;
            }
            io.micrometer.observation.ObservationView parent = view.getParentObservation();
            view = parent == null ? null : parent.getContextView();
        }
        return null;
    }

    /**
     * The {@value #KEY_HASH} value: hex of the first 16 bytes of SHA-256 over scope, operation
     * and key, each length-prefixed (the same value idem-opentelemetry records).
     *
     * @param scope the key's scope
     * @param operation the key's operation
     * @param key the client key
     * @return 32 lower-case hex digits
     */
    public static String keyHash(String scope, String operation, String key) {
        return IdempotencyKey.digest(scope, operation, key);
    }

    /** Validating builder: each setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final ObservationRegistry registry;
        private String storeKind = "unknown";
        private IdempotencyObservationConvention convention;
        private int maxOperations = IdempotencyMetrics.DEFAULT_MAX_OPERATIONS;
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder(ObservationRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The {@value IdempotencyObservation#STORE_KIND} value: the kind of the store underneath
         * every wrapper ({@link IdempotencyMetrics#storeKind} names a plain store).
         *
         * @param kind for example {@code jdbc}; not blank
         * @return this builder
         * @throws IllegalArgumentException if blank
         */
        public Builder storeKind(String kind) {
            once("storeKind");
            Objects.requireNonNull(kind, "storeKind");
            if (kind.isBlank()) {
                throw new IllegalArgumentException("storeKind must not be blank");
            }
            this.storeKind = kind;
            return this;
        }

        /**
         * A convention that replaces the default names and tags of {@value IdempotencyObservation#EXECUTION}
         * (a global convention registered on the registry still wins, as usual).
         *
         * @param convention the convention
         * @return this builder
         */
        public Builder convention(IdempotencyObservationConvention convention) {
            once("convention");
            this.convention = Objects.requireNonNull(convention, "convention");
            return this;
        }

        /**
         * How many distinct key operations name the momentary observations of calls that are
         * not observed; later ones are named {@value IdempotencyMetrics#OTHER_OPERATION}.
         *
         * @param max at least 1 (default {@value IdempotencyMetrics#DEFAULT_MAX_OPERATIONS})
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is less than 1
         */
        public Builder maxOperations(int max) {
            once("maxOperations");
            new OperationBound(max);
            this.maxOperations = max;
            return this;
        }

        /**
         * Builds the instrumentation.
         *
         * @return the instrumentation
         */
        public IdempotencyObservation build() {
            return new IdempotencyObservation(this);
        }
    }
}
