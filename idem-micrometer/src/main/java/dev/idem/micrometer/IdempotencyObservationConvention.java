package dev.idem.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the {@value IdempotencyObservation#EXECUTION} observation. Low cardinality
 * (metric tags and span attributes): {@value IdempotencyObservation#OPERATION},
 * {@value IdempotencyObservation#OUTCOME}, {@value IdempotencyObservation#STORE_KIND}. High
 * cardinality (span attributes only): {@value IdempotencyObservation#KEY_HASH},
 * {@value IdempotencyObservation#ATTEMPT}, {@value IdempotencyObservation#TAKEN_OVER}. The scope
 * (tenant) and the raw key are never recorded. Register a subclass or another convention with
 * {@link IdempotencyObservation.Builder#convention} to change them.
 */
public class IdempotencyObservationConvention implements ObservationConvention<IdempotencyObservationContext> {
    /** The default convention. */
    public IdempotencyObservationConvention() {
    }

    @Override
    public String getName() {
        return IdempotencyObservation.EXECUTION;
    }

    /**
     * {@code idem <operation>}, lower case ({@code idem post /orders/{id}/confirm}): span names
     * with upper-case letters are rewritten by some Micrometer Tracing versions.
     */
    @Override
    public String getContextualName(IdempotencyObservationContext context) {
        return "idem " + context.operationName().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(IdempotencyObservationContext context) {
        return KeyValues.of(IdempotencyObservation.OPERATION, context.operationName(),
                IdempotencyObservation.OUTCOME, context.outcome(),
                IdempotencyObservation.STORE_KIND, context.storeKind());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(IdempotencyObservationContext context) {
        KeyValues values = KeyValues.of(IdempotencyObservation.ATTEMPT, Integer.toString(context.attempt()),
                IdempotencyObservation.TAKEN_OVER, Boolean.toString(context.takenOver()));
        return context.keyHash().isEmpty() ? values : values.and(IdempotencyObservation.KEY_HASH, context.keyHash());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof IdempotencyObservationContext;
    }
}
