package dev.idem.micrometer;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binds an engine's events to a {@link MeterRegistry}: install it as the engine's listener,
 * in one call.
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder()
 *         .store(store)
 *         .listener(IdempotencyMetrics.bind(registry, store))
 *         .build();
 * }</pre>
 *
 * <h2>Meters</h2>
 * <table>
 *   <caption>Meters and their tags</caption>
 *   <tr><th>name</th><th>type</th><th>recorded on</th><th>tags</th></tr>
 *   <tr><td>{@value #EVENTS}</td><td>counter</td><td>every event</td><td>operation, store, outcome</td></tr>
 *   <tr><td>{@value #EXECUTION}</td><td>timer</td><td>the work ran (executed, final_failure_stored,
 *       released_on_transient_failure, lease_lost, outcome_not_stored)</td><td>operation, store, outcome</td></tr>
 *   <tr><td>{@value #REPLAY}</td><td>timer</td><td>a stored outcome was replayed</td><td>operation, store</td></tr>
 *   <tr><td>{@value #RECORD_AGE}</td><td>timer (histogram)</td><td>a replay served from the store: how
 *       long after the first claim the retry arrived</td><td>operation, store</td></tr>
 * </table>
 * Outcome values: {@code executed}, {@code replayed}, {@code in_progress_conflict},
 * {@code key_reused}, {@code lease_taken_over}, {@code lease_lost},
 * {@code released_on_transient_failure}, {@code final_failure_stored},
 * {@code outcome_not_stored} (see {@link #outcome(IdempotencyEvent.Type)}). The {@code operation}
 * tag is bounded: after {@link Builder#maxOperations} distinct operations (default
 * {@value #DEFAULT_MAX_OPERATIONS}) further ones are recorded as {@value #OTHER_OPERATION}, with one
 * warning in the log, because an operation built from raw URL paths (idem-http's default
 * {@code RouteResolver.path()}) would otherwise add series for every order id. The scope (tenant)
 * and the client key are never tags unless {@link Builder#tagScope} or {@link Builder#tagKey}
 * opts in: both grow without bound and would flood the registry.
 *
 * <p>Thread-safe; meters are registered lazily, on the first event of each kind.
 */
public final class IdempotencyMetrics implements IdempotencyListener {
    /** Counter of engine events, tagged by outcome. */
    public static final String EVENTS = "idem.events";
    /** Timer of executions (claim to outcome), tagged by outcome. */
    public static final String EXECUTION = "idem.execution";
    /** Timer of replays (call start to the replayed outcome). */
    public static final String REPLAY = "idem.replay";
    /** Distribution of a replayed record's age. */
    public static final String RECORD_AGE = "idem.replay.record.age";
    /** How many distinct operations get their own tag value unless the builder says otherwise. */
    public static final int DEFAULT_MAX_OPERATIONS = 100;
    /** The operation tag of every operation past the bound. */
    public static final String OTHER_OPERATION = "other";

    private final MeterRegistry registry;
    private final Tags common;
    private final boolean tagScope;
    private final boolean tagKey;
    private final boolean histogram;
    private final OperationBound operations;
    // Meters for the default tag set, so the hot path avoids the registry's lookup.
    private final Map<String, Meters> byOperation = new ConcurrentHashMap<>();

    private IdempotencyMetrics(Builder b) {
        this.registry = b.registry;
        this.common = Tags.of(Tag.of("store", b.storeKind)).and(b.extraTags);
        this.tagScope = b.tagScope;
        this.tagKey = b.tagKey;
        this.histogram = b.histogram;
        this.operations = new OperationBound(b.maxOperations);
    }

    /**
     * The one call: a listener recording into {@code registry}, tagged with the kind of
     * {@code store} (see {@link #storeKind(IdempotencyStore)}).
     *
     * @param registry where meters are registered
     * @param store the store the engine uses, for the {@code store} tag
     * @return the listener to hand to {@code IdempotencyEngineBuilder.listener}
     */
    public static IdempotencyMetrics bind(MeterRegistry registry, IdempotencyStore store) {
        return builder(registry).storeKind(storeKind(store)).build();
    }

    /**
     * A builder for a listener recording into {@code registry}.
     *
     * @param registry where meters are registered
     * @return a builder with the defaults: store kind {@code unknown}, no scope or key tags,
     *     a percentile histogram on the record age
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    /**
     * The short kind of a store for the {@code store} tag: the class name without its
     * {@code IdempotencyStore} suffix, lower case ({@code MemoryIdempotencyStore} is
     * {@code memory}, {@code JdbcIdempotencyStore} is {@code jdbc}).
     *
     * @param store any store
     * @return its kind, never empty
     */
    public static String storeKind(IdempotencyStore store) {
        String name = Objects.requireNonNull(store, "store").getClass().getSimpleName();
        String kind = name.endsWith("IdempotencyStore") ? name.substring(0, name.length() - 16) : name;
        return kind.isEmpty() ? "custom" : kind.toLowerCase(Locale.ROOT);
    }

    /**
     * The {@code outcome} tag value of an event type: {@link IdempotencyEvent.Type#outcome()}, the
     * vocabulary spans use too.
     *
     * @param type an event type
     * @return the tag value, lower snake case
     */
    public static String outcome(IdempotencyEvent.Type type) {
        return type.outcome();
    }

    @Override
    public void onEvent(IdempotencyEvent event) {
        Meters meters;
        String operation = operations.tag(event.operation());
        if (tagScope || tagKey) {
            Tags tags = common.and("operation", operation);
            if (tagScope) {
                tags = tags.and("scope", event.scope());
            }
            if (tagKey) {
                tags = tags.and("key", event.key());
            }
            meters = new Meters(tags);
        } else {
            meters = byOperation.computeIfAbsent(operation, op -> new Meters(common.and("operation", op)));
        }
        meters.record(event);
    }


    private static boolean ranTheWork(IdempotencyEvent.Type type) {
        switch (type) {
            case FIRST_EXECUTION:
            case FINAL_FAILURE_STORED:
            case RELEASED_ON_TRANSIENT_FAILURE:
            case LEASE_LOST:
            case OUTCOME_NOT_STORED:
                return true;
            default:
                return false;
        }
    }

    /** The meters of one tag set (without the outcome). */
    private final class Meters {
        private final Tags tags;
        private final Map<IdempotencyEvent.Type, Counter> counters = new EnumMap<>(IdempotencyEvent.Type.class);
        private final Map<IdempotencyEvent.Type, Timer> executions = new EnumMap<>(IdempotencyEvent.Type.class);
        private volatile Timer replay;
        private volatile Timer age;

        Meters(Tags tags) {
            this.tags = tags;
        }

        void record(IdempotencyEvent event) {
            IdempotencyEvent.Type type = event.type();
            counter(type).increment();
            if (ranTheWork(type)) {
                execution(type).record(event.duration());
            } else if (type == IdempotencyEvent.Type.REPLAY) {
                replayTimer().record(event.duration());
                Duration recordAge = event.recordAge();
                if (recordAge != null) {
                    ageTimer().record(recordAge);
                }
            }
        }

        private synchronized Counter counter(IdempotencyEvent.Type type) {
            return counters.computeIfAbsent(type, t -> Counter.builder(EVENTS)
                    .description("Idempotency engine events by outcome")
                    .tags(tags).tag("outcome", outcome(t)).register(registry));
        }

        private synchronized Timer execution(IdempotencyEvent.Type type) {
            return executions.computeIfAbsent(type, t -> Timer.builder(EXECUTION)
                    .description("Time from the start of execute to the outcome of a run of the work")
                    .tags(tags).tag("outcome", outcome(t)).register(registry));
        }

        private Timer replayTimer() {
            Timer t = replay;
            if (t == null) {
                t = Timer.builder(REPLAY).description("Time to replay a stored outcome").tags(tags)
                        .register(registry);
                replay = t;
            }
            return t;
        }

        private Timer ageTimer() {
            Timer t = age;
            if (t == null) {
                t = Timer.builder(RECORD_AGE)
                        .description("How long after the first claim a replayed retry arrived")
                        .tags(tags).publishPercentileHistogram(histogram)
                        .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofDays(7))
                        .register(registry);
                age = t;
            }
            return t;
        }
    }

    /** Validating builder: each setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final MeterRegistry registry;
        private String storeKind = "unknown";
        private Tags extraTags = Tags.empty();
        private boolean tagScope;
        private boolean tagKey;
        private boolean histogram = true;
        private int maxOperations = DEFAULT_MAX_OPERATIONS;
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The {@code store} tag value.
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
         * Tags added to every meter (an application or engine name).
         *
         * @param tags the tags; none may be named operation, store, outcome, scope or key
         * @return this builder
         * @throws IllegalArgumentException if a tag uses a reserved name
         */
        public Builder tags(Iterable<Tag> tags) {
            once("tags");
            Tags t = Tags.of(Objects.requireNonNull(tags, "tags"));
            for (Tag tag : t) {
                if (java.util.Set.of("operation", "store", "outcome", "scope", "key").contains(tag.getKey())) {
                    throw new IllegalArgumentException("tag " + tag.getKey() + " is set by idem itself");
                }
            }
            this.extraTags = t;
            return this;
        }

        /**
         * Adds the key's scope (tenant) as a {@code scope} tag. Off by default: one series
         * per tenant can exhaust the metrics backend.
         *
         * @param enabled whether to tag
         * @return this builder
         */
        public Builder tagScope(boolean enabled) {
            once("tagScope");
            this.tagScope = enabled;
            return this;
        }

        /**
         * Adds the client key as a {@code key} tag. Off by default and almost never right:
         * every key is a new series. Only for debugging with a handful of keys.
         *
         * @param enabled whether to tag
         * @return this builder
         */
        public Builder tagKey(boolean enabled) {
            once("tagKey");
            this.tagKey = enabled;
            return this;
        }

        /**
         * Whether the record-age timer publishes a percentile histogram (default true).
         *
         * @param enabled whether to publish it
         * @return this builder
         */
        public Builder recordAgeHistogram(boolean enabled) {
            once("recordAgeHistogram");
            this.histogram = enabled;
            return this;
        }

        /**
         * How many distinct operations get their own {@code operation} tag value; later ones are
         * tagged {@value IdempotencyMetrics#OTHER_OPERATION}.
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
         * Builds the listener.
         *
         * @return the listener
         */
        public IdempotencyMetrics build() {
            return new IdempotencyMetrics(this);
        }
    }
}
