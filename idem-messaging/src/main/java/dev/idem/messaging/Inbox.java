package dev.idem.messaging;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.AtomicWork;
import dev.idem.engine.CallOptions;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.RequestSerializationException;
import dev.idem.engine.Result;
import dev.idem.messaging.internal.Envelope;
import java.lang.System.Logger.Level;
import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Handles each delivered message once per event id, on any idem store: the consumer half of
 * at-least-once delivery (brokers redeliver after an ack timeout, webhooks replay, a worker
 * crashes between its side effect and its ack).
 *
 * <p>{@link #handle(String, String, Object)} maps a delivery onto the engine with
 * scope = source (the producer), operation = this inbox's consumer name, key = event id and
 * fingerprint = the payload, then:
 * <ul>
 *   <li>a new event runs the handler; its result is stored and returned as
 *       {@link Delivery.Status#HANDLED};</li>
 *   <li>a redelivery of an event that ended returns the stored outcome with
 *       {@link Delivery#duplicate()} true, without running anything;</li>
 *   <li>the same event id with another payload runs nothing: the {@link Mismatch.Callback}
 *       gets it and the delivery is {@link Delivery.Status#MISMATCH};</li>
 *   <li>a transient handler failure is rethrown (checked ones wrapped in
 *       {@link dev.idem.engine.WorkFailedException}) so the broker redelivers; the next
 *       delivery runs the handler again with {@link InboxMessage#attempt()} one higher;</li>
 *   <li>a final failure (by the inbox's {@link FailureClassifier}) is recorded, goes to the
 *       {@link DeadLetter.Callback}, and is {@link Delivery.Status#FAILED};</li>
 *   <li>the attempt that reaches {@code maxAttempts} without success goes to the dead-letter
 *       callback and is recorded as {@link Delivery.Status#DEAD_LETTERED}; a consumer that
 *       crashed mid-handling counts as an attempt too.</li>
 * </ul>
 * A delivery for which {@code handle} returns should be acknowledged (offset committed); one
 * for which it throws should not. A delivery that finds the event in progress under another
 * consumer's live lease throws {@link dev.idem.api.RequestInProgressException}: redeliver it
 * later (or give the inbox {@link CallOptions} with a waiting in-progress policy).
 *
 * <h2>Ordering</h2>
 * The inbox does not reorder and does not restore order: it handles deliveries in the order
 * they are given, and a redelivered event is handled when it comes back, possibly after
 * later ones. Handlers must tolerate out-of-order events (compare versions, or make the
 * effect commutative).
 *
 * <h2>Same-database effects</h2>
 * With a {@link TransactionalMessageHandler} on idem-store-jdbc, the handler's writes and the
 * inbox record commit in one transaction, so a crash between them cannot repeat the effect.
 * With a plain {@link MessageHandler}, a consumer that crashes after its effect but before the
 * record is stored, or outlives its lease, may run the handler again: pass
 * {@link ExecutionContext#downstreamKey()} to downstream systems that deduplicate.
 *
 * <p>Thread-safe; handle deliveries from as many threads as the broker client allows.
 *
 * @param <R> the handler's result type
 */
public final class Inbox<R> {
    private static final System.Logger LOG = System.getLogger(Inbox.class.getName());

    private final IdempotencyEngine engine;
    private final String consumer;
    private final MessageHandler<R> handler;
    private final TransactionalMessageHandler<R> transactional;
    private final TypeReference<Envelope<R>> envelopeType;
    private final int maxAttempts;
    private final FailureClassifier classifier;
    private final Mismatch.Callback onMismatch;
    private final DeadLetter.Callback onDeadLetter;
    private final InboxListener listener;
    private final CallOptions options;

    private Inbox(Builder<R> b) {
        this.engine = b.engine != null ? b.engine : IdempotencyEngine.builder().store(b.store).build();
        this.consumer = b.consumer;
        this.handler = b.handler;
        this.transactional = b.transactional;
        JavaType javaType = TypeFactory.defaultInstance().constructParametricType(Envelope.class,
                TypeFactory.defaultInstance().constructType(b.resultType));
        // The engine takes a TypeReference; this one carries a type built at run time.
        this.envelopeType = new TypeReference<>() {
            @Override
            public Type getType() {
                return javaType;
            }
        };
        this.maxAttempts = b.maxAttempts;
        this.classifier = b.classifier;
        this.onMismatch = b.onMismatch;
        this.onDeadLetter = b.onDeadLetter;
        this.listener = b.listener;
        this.options = b.options;
    }

    /**
     * A builder for an inbox whose handler returns {@code resultType}.
     *
     * @param <R> the result type
     * @param resultType the handler's result class ({@code Void.class} for none)
     * @return the builder
     */
    public static <R> Builder<R> builder(Class<R> resultType) {
        return new Builder<>(Objects.requireNonNull(resultType, "resultType"));
    }

    /**
     * The consumer name: the operation of every inbox record.
     *
     * @return the consumer name
     */
    public String consumer() {
        return consumer;
    }

    /**
     * The engine the inbox runs on.
     *
     * @return the engine
     */
    public IdempotencyEngine engine() {
        return engine;
    }

    /**
     * Handles one delivery.
     *
     * @param source the producer (1..200 characters, no control characters)
     * @param eventId the producer's stable event id (1..255 visible ASCII characters)
     * @param payload the message body; fingerprinted by the engine's rules: {@code byte[]} as it
     *     is, a {@code String} as JSON text, other objects as their JSON form (null allowed)
     * @return what became of the event; acknowledge the delivery
     * @throws PoisonMessageException if the source or event id is not a valid key part, or the
     *     engine refused the payload (over {@code maxRequestBytes}, malformed JSON text): nothing
     *     ran; park the message and acknowledge it rather than redeliver it
     * @throws RuntimeException a transient failure, an in-progress duplicate or an unavailable
     *     store: do not acknowledge, so the broker redelivers
     */
    public Delivery<R> handle(String source, String eventId, Object payload) {
        IdempotencyKey key = key(source, eventId);
        // Set once the handler's execution starts: an invalid-request failure before it is the
        // engine refusing this payload; after it, it is the handler's own failure.
        AtomicBoolean started = new AtomicBoolean();
        Result<Envelope<R>> result;
        try {
            if (transactional == null) {
                result = engine.execute(key, payload, envelopeType, options, ctx -> {
                    started.set(true);
                    return run(new InboxMessage(source, eventId, payload, ctx), null);
                });
            } else {
                result = engine.executeAtomically(key, payload, envelopeType, options, (ctx, completion) -> {
                    started.set(true);
                    return run(new InboxMessage(source, eventId, payload, ctx), completion);
                });
            }
        } catch (InvalidRequestException | RequestSerializationException e) {
            if (started.get()) {
                throw e;
            }
            throw new PoisonMessageException(PoisonMessageException.Reason.INVALID_PAYLOAD,
                    "the payload of event " + eventId + " from " + source + " was refused: " + e.getMessage(), e);
        } catch (KeyReusedException e) {
            emit(InboxEvent.Type.MISMATCH, source, eventId, 0);
            onMismatch.onMismatch(new Mismatch(source, consumer, eventId, payload));
            return new Delivery<>(Delivery.Status.MISMATCH, false, null, 0, "", "");
        } catch (FinalFailureException e) {
            // Only when the user's engine classifies a rethrown failure as final itself; the first
            // delivery gets the same code and detail as its redeliveries.
            boolean replayed = e instanceof ReplayedFailureException;
            if (replayed) {
                emit(InboxEvent.Type.DUPLICATE, source, eventId, 0);
            }
            return new Delivery<>(Delivery.Status.FAILED, replayed, null, 0, e.code(), e.detail());
        }
        Envelope<R> envelope = result.value();
        boolean duplicate = result.replayed();
        int attempt = result.attempt();
        if (duplicate) {
            emit(InboxEvent.Type.DUPLICATE, source, eventId, attempt);
        }
        switch (envelope.status()) {
            case Envelope.OK:
                if (!duplicate) {
                    emit(InboxEvent.Type.HANDLED, source, eventId, attempt);
                }
                return new Delivery<>(Delivery.Status.HANDLED, duplicate, envelope.result(), attempt, "", "");
            case Envelope.FAILED:
                return new Delivery<>(Delivery.Status.FAILED, duplicate, null, attempt, envelope.code(),
                        envelope.message());
            default:
                return new Delivery<>(Delivery.Status.DEAD_LETTERED, duplicate, null, attempt, envelope.code(),
                        envelope.message());
        }
    }

    /**
     * Whether the event has ended in this inbox (handled, failed finally, dead-lettered or its
     * payload mismatched): its unexpired record is completed. Reads the record without claiming
     * it and runs nothing. For broker adapters that must decide about a delivery they will not
     * hand to {@link #handle} (a Kafka share group delivered it past its limit): an event that
     * ended needs no dead letter, only an acknowledgement.
     *
     * @param source the producer
     * @param eventId the event id
     * @return true if the event's record is completed
     * @throws PoisonMessageException if the source or event id is not a valid key part
     * @throws RuntimeException if the store fails
     */
    public boolean ended(String source, String eventId) {
        return engine.store().find(key(source, eventId)).map(r -> r.state() == RecordState.COMPLETED).orElse(false);
    }

    private IdempotencyKey key(String source, String eventId) {
        try {
            return IdempotencyKey.of(source, consumer, eventId);
        } catch (InvalidIdempotencyKeyException e) {
            throw new PoisonMessageException(PoisonMessageException.Reason.INVALID_KEY,
                    "delivery to " + consumer + " has an invalid source or event id: " + e.getMessage(), e);
        }
    }

    private Envelope<R> run(InboxMessage message, AtomicWork.Completion completion) throws Exception {
        int attempt = message.attempt();
        if (attempt > maxAttempts) {
            // Earlier attempts crashed mid-handling (their leases lapsed): do not try again.
            return giveUp(message, completion, DeadLetter.Reason.ATTEMPTS_EXHAUSTED, null, Envelope.DEAD,
                    "attempts_exhausted", attempt - 1 + " attempts did not finish");
        }
        try {
            if (transactional == null) {
                return Envelope.ok(handler.handle(message));
            }
            Encoder encoder = new Encoder(message.context(), completion);
            R value = transactional.handle(message, encoder);
            if (!encoder.used) {
                throw new IllegalStateException("the transactional handler of " + consumer
                        + " returned without completing the inbox record (call InboxCompletion.encode)");
            }
            return Envelope.ok(value);
        } catch (LeaseLostException e) {
            throw e;
        } catch (Exception e) {
            FailureDecision decision = classify(e);
            if (decision.isFinal()) {
                emit(InboxEvent.Type.FINAL_FAILURE, message.source(), message.eventId(), attempt);
                return giveUp(message, completion, DeadLetter.Reason.FINAL_FAILURE, e, Envelope.FAILED,
                        decision.code(), decision.message());
            }
            if (attempt >= maxAttempts) {
                return giveUp(message, completion, DeadLetter.Reason.ATTEMPTS_EXHAUSTED, e, Envelope.DEAD,
                        "attempts_exhausted", String.valueOf(e));
            }
            emit(InboxEvent.Type.TRANSIENT_FAILURE, message.source(), message.eventId(), attempt);
            throw e;
        }
    }

    private FailureDecision classify(Exception e) {
        try {
            FailureDecision d = classifier.classify(e);
            return d == null ? FailureDecision.transientFailure() : d;
        } catch (RuntimeException classifierFailure) {
            LOG.log(Level.WARNING, "inbox failure classifier threw; treating the failure as transient",
                    classifierFailure);
            return FailureDecision.transientFailure();
        }
    }

    private Envelope<R> giveUp(InboxMessage message, AtomicWork.Completion completion, DeadLetter.Reason reason,
            Exception cause, String status, String code, String text) throws Exception {
        onDeadLetter.onDeadLetter(new DeadLetter(message.source(), consumer, message.eventId(), message.payload(),
                message.attempt(), reason, cause));
        Envelope<R> envelope = Envelope.failure(status, code, text);
        if (completion != null) {
            // Atomic mode: the engine stores nothing itself, so record the end here, fenced.
            ExecutionContext ctx = message.context();
            if (!engine.store().complete(ctx.key(), ctx.fencingToken(), completion.encode(envelope),
                    completion.ttl())) {
                throw new LeaseLostException(ctx.key(), ctx.fencingToken());
            }
        }
        emit(InboxEvent.Type.DEAD_LETTERED, message.source(), message.eventId(), message.attempt());
        return envelope;
    }

    private void emit(InboxEvent.Type type, String source, String eventId, int attempt) {
        if (listener == InboxListener.NONE) {
            return;
        }
        try {
            listener.onEvent(new InboxEvent(type, source, consumer, eventId, attempt));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "inbox listener threw on " + type, e);
        }
    }

    /** Hands a transactional handler what it needs, and notes whether it encoded a result. */
    private final class Encoder implements InboxCompletion<R> {
        private final ExecutionContext ctx;
        private final AtomicWork.Completion completion;
        private volatile boolean used;

        Encoder(ExecutionContext ctx, AtomicWork.Completion completion) {
            this.ctx = ctx;
            this.completion = completion;
        }

        @Override
        public IdempotencyKey key() {
            return ctx.key();
        }

        @Override
        public long fencingToken() {
            return ctx.fencingToken();
        }

        @Override
        public java.time.Duration ttl() {
            return completion.ttl();
        }

        @Override
        public byte[] encode(R result) {
            used = true;
            return completion.encode(Envelope.ok(result));
        }
    }

    /**
     * Validating builder: each setter checks its argument at once and may be called once;
     * {@link #build()} checks that exactly one engine or store and exactly one handler were given.
     *
     * @param <R> the handler's result type
     */
    public static final class Builder<R> {
        private final Class<R> resultType;
        private final Set<String> set = new HashSet<>();
        private IdempotencyEngine engine;
        private IdempotencyStore store;
        private String consumer;
        private MessageHandler<R> handler;
        private TransactionalMessageHandler<R> transactional;
        private int maxAttempts = 5;
        private FailureClassifier classifier = FailureClassifier.ALL_TRANSIENT;
        private Mismatch.Callback onMismatch = m -> LOG.log(Level.WARNING,
                "event {0} from {1} was redelivered to {2} with another payload; dropped", m.eventId(), m.source(),
                m.consumer());
        private DeadLetter.Callback onDeadLetter = d -> LOG.log(Level.ERROR,
                "event {0} from {1} dead-lettered by {2} after attempt {3} ({4})", d.eventId(), d.source(),
                d.consumer(), d.attempt(), d.reason());
        private InboxListener listener = InboxListener.NONE;
        private CallOptions options = CallOptions.defaults();

        private Builder(Class<R> resultType) {
            this.resultType = resultType;
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The engine to run on (its store, TTL, lease and listener apply). Exclusive with {@link #store}.
         *
         * @param engine the engine
         * @return this builder
         */
        public Builder<R> engine(IdempotencyEngine engine) {
            once("engine");
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /**
         * The store to run on, with an engine of default settings. Exclusive with {@link #engine}.
         *
         * @param store the store
         * @return this builder
         */
        public Builder<R> store(IdempotencyStore store) {
            once("store");
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The consumer's name, the operation of its inbox records: two consumers of one topic
         * with different names each handle every event once.
         *
         * @param consumer 1..200 characters, no control characters
         * @return this builder
         */
        public Builder<R> consumer(String consumer) {
            once("consumer");
            // Validated as the operation part of a key, which is what it becomes.
            IdempotencyKey.of("inbox", consumer, "x");
            this.consumer = consumer;
            return this;
        }

        /**
         * The handler. Exclusive with {@link #transactionalHandler}.
         *
         * @param handler the handler
         * @return this builder
         */
        public Builder<R> handler(MessageHandler<R> handler) {
            once("handler");
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * A handler that completes the inbox record in its own transaction. Exclusive with
         * {@link #handler}.
         *
         * @param handler the handler
         * @return this builder
         */
        public Builder<R> transactionalHandler(TransactionalMessageHandler<R> handler) {
            once("transactionalHandler");
            this.transactional = Objects.requireNonNull(handler, "transactionalHandler");
            return this;
        }

        /**
         * How many attempts an event gets before it is dead-lettered (default 5).
         *
         * @param maxAttempts 1..10000
         * @return this builder
         */
        public Builder<R> maxAttempts(int maxAttempts) {
            once("maxAttempts");
            if (maxAttempts < 1 || maxAttempts > 10_000) {
                throw new IllegalArgumentException("maxAttempts must be within 1..10000 but was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * Which handler failures are final: recorded, dead-lettered and never retried (default: none).
         *
         * @param classifier the classifier
         * @return this builder
         */
        public Builder<R> failureClassifier(FailureClassifier classifier) {
            once("failureClassifier");
            this.classifier = Objects.requireNonNull(classifier, "failureClassifier");
            return this;
        }

        /**
         * Receives deliveries whose event id was used with another payload (default: a warning log).
         *
         * @param callback the callback
         * @return this builder
         */
        public Builder<R> onMismatch(Mismatch.Callback callback) {
            once("onMismatch");
            this.onMismatch = Objects.requireNonNull(callback, "onMismatch");
            return this;
        }

        /**
         * Receives dead events (default: an error log).
         *
         * @param callback the callback
         * @return this builder
         */
        public Builder<R> onDeadLetter(DeadLetter.Callback callback) {
            once("onDeadLetter");
            this.onDeadLetter = Objects.requireNonNull(callback, "onDeadLetter");
            return this;
        }

        /**
         * Receives inbox events, for metrics.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder<R> listener(InboxListener listener) {
            once("listener");
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Per-call engine options for every delivery: the record TTL (keep it longer than the
         * broker's redelivery horizon), the lease, the in-progress policy.
         *
         * @param options the options
         * @return this builder
         */
        public Builder<R> callOptions(CallOptions options) {
            once("callOptions");
            this.options = Objects.requireNonNull(options, "callOptions");
            return this;
        }

        /**
         * Builds the inbox.
         *
         * @return the inbox
         * @throws IllegalStateException if the consumer name, the engine or store, or the handler
         *     is missing, or both of an exclusive pair were given
         */
        public Inbox<R> build() {
            if (consumer == null) {
                throw new IllegalStateException("consumer is required");
            }
            if ((engine == null) == (store == null)) {
                throw new IllegalStateException("exactly one of engine and store is required");
            }
            if ((handler == null) == (transactional == null)) {
                throw new IllegalStateException("exactly one of handler and transactionalHandler is required");
            }
            return new Inbox<>(this);
        }
    }
}
