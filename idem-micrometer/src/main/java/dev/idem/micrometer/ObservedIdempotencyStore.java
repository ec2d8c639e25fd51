package dev.idem.micrometer;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store whose every round trip is an {@value IdempotencyObservation#STORE} observation (a
 * child of the call's {@value IdempotencyObservation#EXECUTION} observation when there is one).
 * Obtain one with {@link IdempotencyObservation#wrap}. Keys, scopes, fingerprints and outcomes
 * are never recorded. Thread-safe when the wrapped store is.
 */
final class ObservedIdempotencyStore implements IdempotencyStore {
    private final IdempotencyStore delegate;
    private final ObservationRegistry registry;
    private final String kind;

    ObservedIdempotencyStore(IdempotencyStore delegate, ObservationRegistry registry, String kind) {
        this.delegate = Objects.requireNonNull(delegate, "store");
        this.registry = registry;
        this.kind = kind;
    }

    private <T> T observed(String operation, Supplier<T> call) {
        Observation observation = Observation.createNotStarted(IdempotencyObservation.STORE, registry)
                .contextualName("idem.store." + operation)
                .lowCardinalityKeyValue(IdempotencyObservation.STORE_OPERATION, operation)
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
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return observed("claim", () -> delegate.claim(key, fingerprint, fencingToken, lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return observed("complete", () -> delegate.complete(key, fencingToken, outcome, ttl));
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return observed("release", () -> delegate.release(key, fencingToken));
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return observed("checkpoint", () -> delegate.checkpoint(key, fencingToken, journal));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return observed("extend_lease", () -> delegate.extendLease(key, fencingToken, lease));
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return observed("find", () -> delegate.find(key));
    }

    @Override
    public int purgeExpired(int limit) {
        return observed("purge_expired", () -> delegate.purgeExpired(limit));
    }

    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return this == store || delegate.isBackedBy(store);
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "Observed(" + delegate + ")";
    }
}
