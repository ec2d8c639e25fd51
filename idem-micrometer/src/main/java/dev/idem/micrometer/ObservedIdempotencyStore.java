package dev.idem.micrometer;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A store whose every round trip is an {@value IdempotencyObservation#STORE} observation (a
 * child of the call's {@value IdempotencyObservation#EXECUTION} observation when there is one).
 * Obtain one with {@link IdempotencyObservation#wrap}. Keys, scopes, fingerprints and outcomes
 * are never recorded. The wrapped store's non-blocking form is observed too: such an observation
 * stops when the operation's stage completes. Thread-safe when the wrapped store is.
 */
final class ObservedIdempotencyStore extends ForwardingIdempotencyStore {
    private final ObservationRegistry registry;
    private final String kind;

    ObservedIdempotencyStore(IdempotencyStore delegate, ObservationRegistry registry, String kind) {
        super(delegate);
        this.registry = registry;
        this.kind = kind;
    }

    private Observation observation(Operation operation) {
        return Observation.createNotStarted(IdempotencyObservation.STORE, registry)
                .contextualName("idem.store." + operation.label())
                .lowCardinalityKeyValue(IdempotencyObservation.STORE_OPERATION, operation.label())
                .lowCardinalityKeyValue(IdempotencyObservation.STORE_KIND, kind)
                .lowCardinalityKeyValue(IdempotencyObservation.CLAIM_STATUS, "none");
    }

    @Override
    @SuppressWarnings("try") // the scope is held open around the call, never read by name
    protected <T> CompletionStage<T> aroundAsync(Operation operation, IdempotencyKey key,
            Supplier<? extends CompletionStage<T>> call) {
        Observation observation = observation(operation).start();
        CompletionStage<T> stage;
        try (Observation.Scope ignored = observation.openScope()) {
            stage = call.get();
        } catch (RuntimeException | Error e) {
            observation.error(e);
            observation.stop();
            throw e;
        }
        // Stopped when the store answers, on whichever thread completes the stage.
        return stage.whenComplete((result, failure) -> {
            if (failure != null) {
                observation.error(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            } else if (result instanceof ClaimResult claim) {
                observation.lowCardinalityKeyValue(IdempotencyObservation.CLAIM_STATUS, claim.status().name());
            }
            observation.stop();
        });
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        Observation observation = observation(operation);
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
