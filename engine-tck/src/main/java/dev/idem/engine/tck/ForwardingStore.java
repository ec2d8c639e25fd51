package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** Passes every call on to a real store; the kit's mutants override the call they break. */
class ForwardingStore implements IdempotencyStore {
    final IdempotencyStore delegate;

    ForwardingStore(IdempotencyStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return delegate.claim(key, fingerprint, token, lease, ttl);
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return delegate.complete(key, token, outcome, ttl);
    }

    @Override
    public boolean release(IdempotencyKey key, long token) {
        return delegate.release(key, token);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
        return delegate.checkpoint(key, token, journal);
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
        return delegate.extendLease(key, token, lease);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return delegate.find(key);
    }

    @Override
    public int purgeExpired(int limit) {
        return delegate.purgeExpired(limit);
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }
}
