package dev.idem.micrometer;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.Supplier;

/**
 * A store whose every round trip is an {@value IdempotencyObservation#STORE} observation (a
 * child of the call's {@value IdempotencyObservation#EXECUTION} observation when there is one).
 * Obtain one with {@link IdempotencyObservation#wrap}. Keys, scopes, fingerprints and outcomes
 * are never recorded. Thread-safe when the wrapped store is.
 */
final class ObservedIdempotencyStore extends ForwardingIdempotencyStore {
    private final ObservationRegistry registry;
    private final String kind;

    ObservedIdempotencyStore(IdempotencyStore delegate, ObservationRegistry registry, String kind) {
        super(delegate);
        this.registry = registry;
        this.kind = kind;
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        Observation observation = Observation.createNotStarted(IdempotencyObservation.STORE, registry)
                .contextualName("idem.store." + operation.label())
                .lowCardinalityKeyValue(IdempotencyObservation.STORE_OPERATION, operation.label())
                .lowCardinalityKeyValue(IdempotencyObservation.STORE_KIND, kind)
                .lowCardinalityKeyValue(IdempotencyObservation.CLAIM_STATUS, "none");
        return observation.observe(() -> {
            T result = call.get();
            if (result instanceof ClaimResult claim) {
                observation.lowCardinalityKeyValue(IdempotencyObservation.CLAIM_STATUS, claim.status().name());
            }
            return result;
        });
    }

    @Override
    public String toString() {
        return "Observed(" + delegate() + ")";
    }
}
