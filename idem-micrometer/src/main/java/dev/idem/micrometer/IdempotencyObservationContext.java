package dev.idem.micrometer;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * What an {@value IdempotencyObservation#EXECUTION} observation knows about one engine call:
 * the bounded operation name it was opened with, the store's kind, and what the engine's events
 * reported (outcome, attempt, takeover). Filled in on the calling thread; read by the
 * convention when the observation stops.
 */
public final class IdempotencyObservationContext extends Observation.Context {
    private final String operationName;
    private final String storeKind;
    private final String keyHash;
    private final String scope;
    private final String operation;
    private final String key;
    private volatile String outcome = IdempotencyObservation.NO_OUTCOME;
    private volatile int attempt;
    private volatile boolean takenOver;

    /**
     * A context for one call.
     *
     * @param operationName the bounded operation name (a route template, an annotation's operation)
     * @param storeKind the store's kind
     * @param key the call's key (compared with the engine's events, never recorded), or null
     */
    public IdempotencyObservationContext(String operationName, String storeKind,
            dev.idem.api.IdempotencyKey key) {
        this.operationName = Objects.requireNonNull(operationName, "operationName");
        this.storeKind = Objects.requireNonNull(storeKind, "storeKind");
        this.scope = key == null ? null : key.scope();
        this.operation = key == null ? null : key.operation();
        this.key = key == null ? null : key.key();
        this.keyHash = key == null ? "" : IdempotencyObservation.keyHash(scope, operation, this.key);
    }

    /** Whether an engine event about {@code scope/operation/key} belongs to this call. */
    boolean isFor(String scope, String operation, String key) {
        return key.equals(this.key) && operation.equals(this.operation) && scope.equals(this.scope);
    }

    /**
     * The bounded operation name.
     *
     * @return the operation name
     */
    public String operationName() {
        return operationName;
    }

    /**
     * The store's kind.
     *
     * @return the kind, for example {@code jdbc}
     */
    public String storeKind() {
        return storeKind;
    }

    /**
     * The hash of scope, operation and key ({@link IdempotencyObservation#keyHash}).
     *
     * @return 32 hex digits, or empty
     */
    public String keyHash() {
        return keyHash;
    }

    /**
     * The outcome of the call, in the one vocabulary of {@code IdempotencyEvent.Type#outcome()};
     * {@value IdempotencyObservation#NO_OUTCOME} until an event reports one.
     *
     * @return the outcome
     */
    public String outcome() {
        return outcome;
    }

    /**
     * The attempt number involved, 0 until known.
     *
     * @return the attempt
     */
    public int attempt() {
        return attempt;
    }

    /**
     * Whether this call took over a lapsed lease.
     *
     * @return whether a takeover happened
     */
    public boolean takenOver() {
        return takenOver;
    }

    void outcome(String outcome, int attempt) {
        this.outcome = outcome;
        this.attempt = attempt;
    }

    void takenOver(int attempt) {
        this.takenOver = true;
        this.attempt = attempt;
    }
}
