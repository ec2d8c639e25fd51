package dev.idem.opentelemetry;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.IdempotencyListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import java.util.Objects;

/**
 * Records engine events on the caller's current span (the HTTP server span, a consumer
 * span): the engine calls its listener on the executing thread, so {@link Span#current()} is
 * the span of the request being deduplicated. Install it as the engine's listener, and wrap
 * the store with {@link #wrap(IdempotencyStore)} for a child span per store round trip:
 *
 * <pre>{@code
 * IdempotencyTracing tracing = IdempotencyTracing.create(openTelemetry);
 * IdempotencyEngine engine = IdempotencyEngine.builder()
 *         .store(tracing.wrap(store))
 *         .listener(tracing)
 *         .build();
 * }</pre>
 *
 * <h2>What is recorded</h2>
 * Span attributes (the last event of a call wins): {@value #OUTCOME} (the metrics' vocabulary,
 * {@link IdempotencyEvent.Type#outcome()}: {@code executed}, {@code replayed},
 * {@code in_progress_conflict}, {@code key_reused}, {@code lease_lost},
 * {@code released_on_transient_failure}, {@code final_failure_stored},
 * {@code outcome_not_stored}), {@value #ATTEMPT},
 * {@value #OPERATION}, {@value #KEY_HASH}, and {@value #TAKEOVER} = true once a lapsed
 * lease was taken over. Each event is also added as a span event named
 * {@code idem.<outcome>} (and {@code idem.lease_taken_over}) with the same attributes. The
 * key's hash is the first 16 bytes of SHA-256 over scope, operation and key, hex: enough to
 * correlate a client's retries across traces, without exporting the key. The raw key is
 * recorded only with {@link Builder#recordRawKey(boolean)}; the scope (tenant) never is.
 *
 * <p>Thread-safe and stateless apart from its configuration.
 */
public final class IdempotencyTracing implements IdempotencyListener {
    /** Span attribute: the outcome of the call. */
    public static final String OUTCOME = "idem.outcome";
    /** Span attribute: the attempt number involved. */
    public static final String ATTEMPT = "idem.attempt";
    /** Span attribute: the key's operation. */
    public static final String OPERATION = "idem.operation";
    /** Span attribute: the hash of scope, operation and key. */
    public static final String KEY_HASH = "idem.key.hash";
    /** Span attribute: the raw client key, only when opted in. */
    public static final String KEY = "idem.key";
    /** Span attribute: true when this call took over a lapsed lease. */
    public static final String TAKEOVER = "idem.lease.taken_over";

    static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
    static final AttributeKey<Long> ATTEMPT_KEY = AttributeKey.longKey(ATTEMPT);
    static final AttributeKey<String> OPERATION_KEY = AttributeKey.stringKey(OPERATION);
    static final AttributeKey<String> KEY_HASH_KEY = AttributeKey.stringKey(KEY_HASH);
    static final AttributeKey<String> KEY_KEY = AttributeKey.stringKey(KEY);
    static final AttributeKey<Boolean> TAKEOVER_KEY = AttributeKey.booleanKey(TAKEOVER);

    private final OpenTelemetry openTelemetry;
    private final boolean rawKey;
    private final String storeKind;

    private IdempotencyTracing(Builder b) {
        this.openTelemetry = b.openTelemetry;
        this.rawKey = b.rawKey;
        this.storeKind = b.storeKind;
    }

    /**
     * Tracing with the defaults (the key's hash, never the raw key).
     *
     * @param openTelemetry the SDK or agent-provided instance; its tracer names store spans
     * @return the listener, which also wraps stores
     */
    public static IdempotencyTracing create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * A builder.
     *
     * @param openTelemetry the SDK or agent-provided instance
     * @return a builder with the defaults
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(openTelemetry);
    }

    /**
     * Wraps {@code store} so each of its operations runs in a child span of the current one.
     *
     * @param store the store to wrap
     * @return the decorating store
     */
    public IdempotencyStore wrap(IdempotencyStore store) {
        return new TracingIdempotencyStore(store, openTelemetry.getTracer(TracingIdempotencyStore.INSTRUMENTATION),
                storeKind != null ? storeKind : TracingIdempotencyStore.kindOf(store));
    }

    /**
     * The {@value #OUTCOME} value of an event type: {@link IdempotencyEvent.Type#outcome()}, the
     * vocabulary metrics use too.
     *
     * @param type an event type
     * @return the attribute value
     */
    public static String outcome(IdempotencyEvent.Type type) {
        return type.outcome();
    }

    /**
     * The {@value #KEY_HASH} value: hex of the first 16 bytes of SHA-256 over scope,
     * operation and key, each length-prefixed so no two keys collide by concatenation.
     *
     * @param scope the key's scope
     * @param operation the key's operation
     * @param key the client key
     * @return 32 lower-case hex digits
     */
    public static String keyHash(String scope, String operation, String key) {
        return IdempotencyKey.digest(scope, operation, key);
    }

    @Override
    public void onEvent(IdempotencyEvent event) {
        Span span = Span.current();
        if (!span.isRecording()) {
            return;
        }
        String outcome = outcome(event.type());
        AttributesBuilder attributes = Attributes.builder()
                .put(OPERATION_KEY, event.operation())
                .put(ATTEMPT_KEY, (long) event.attempt())
                .put(KEY_HASH_KEY, keyHash(event.scope(), event.operation(), event.key()));
        if (rawKey) {
            attributes.put(KEY_KEY, event.key());
        }
        if (event.type() == IdempotencyEvent.Type.LEASE_TAKEN_OVER) {
            span.setAttribute(TAKEOVER_KEY, true);
        } else {
            attributes.put(OUTCOME_KEY, outcome);
        }
        Attributes built = attributes.build();
        span.setAllAttributes(built);
        span.addEvent("idem." + outcome, built);
    }

    /** Validating builder: each setter may be called once. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private boolean rawKey;
        private boolean rawKeySet;
        private String storeKind;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        }

        /**
         * Also records the raw client key as {@value IdempotencyTracing#KEY} (off by default:
         * keys may be guessable secrets or personal data, and traces are widely readable).
         *
         * @param enabled whether to record it
         * @return this builder
         */
        public Builder recordRawKey(boolean enabled) {
            if (rawKeySet) {
                throw new IllegalStateException("recordRawKey was already set");
            }
            rawKeySet = true;
            this.rawKey = enabled;
            return this;
        }

        /**
         * The {@value TracingIdempotencyStore#STORE_KIND} of the store spans ({@code jdbc},
         * {@code redis}, ...). By default it is read off the wrapped store's class name, which is
         * wrong when that store is itself a wrapper: name the kind of the store underneath.
         *
         * @param kind the store's kind; not blank
         * @return this builder
         * @throws IllegalStateException if already set
         * @throws IllegalArgumentException if blank
         */
        public Builder storeKind(String kind) {
            if (storeKind != null) {
                throw new IllegalStateException("storeKind was already set");
            }
            Objects.requireNonNull(kind, "storeKind");
            if (kind.isBlank()) {
                throw new IllegalArgumentException("storeKind must not be blank");
            }
            this.storeKind = kind;
            return this;
        }

        /**
         * Builds the listener.
         *
         * @return the listener
         */
        public IdempotencyTracing build() {
            return new IdempotencyTracing(this);
        }
    }
}
