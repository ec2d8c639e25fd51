package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the store operations (SPI calls) that reach a store with no network of its own:
 * for the in-memory store one SPI call is the round-trip equivalent. {@code capabilities()}
 * is local configuration and not counted.
 */
final class CountingStore implements IdempotencyStore, TripCounter {
    private final IdempotencyStore delegate;
    private final AtomicLong calls = new AtomicLong();

    CountingStore(IdempotencyStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public long total() {
        return calls.get();
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        calls.incrementAndGet();
        return delegate.claim(key, fingerprint, fencingToken, lease, ttl);
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        calls.incrementAndGet();
        return delegate.complete(key, fencingToken, outcome, ttl);
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        calls.incrementAndGet();
        return delegate.release(key, fencingToken);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        calls.incrementAndGet();
        return delegate.checkpoint(key, fencingToken, journal);
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        calls.incrementAndGet();
        return delegate.extendLease(key, fencingToken, lease);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        calls.incrementAndGet();
        return delegate.find(key);
    }

    @Override
    public int purgeExpired(int limit) {
        calls.incrementAndGet();
        return delegate.purgeExpired(limit);
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
}
