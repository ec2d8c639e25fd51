package dev.idem.http;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** A real store that can be switched off, failing like a store whose backend is gone. */
final class SwitchableStore implements IdempotencyStore {
    private final IdempotencyStore delegate;
    volatile boolean down;
    /** When set, complete stores what it makes of the outcome instead (tampering, cutting short). */
    volatile java.util.function.UnaryOperator<byte[]> outcomeWritten;

    SwitchableStore(IdempotencyStore delegate) {
        this.delegate = delegate;
    }

    private void check() {
        if (down) {
            throw new StoreUnavailableException("connection refused (test outage)", null, true);
        }
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        check();
        return delegate.claim(key, fingerprint, fencingToken, lease, ttl);
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        check();
        java.util.function.UnaryOperator<byte[]> written = outcomeWritten;
        return delegate.complete(key, fencingToken, written == null ? outcome : written.apply(outcome), ttl);
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        check();
        return delegate.release(key, fencingToken);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        check();
        return delegate.checkpoint(key, fencingToken, journal);
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        check();
        return delegate.extendLease(key, fencingToken, lease);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        check();
        return delegate.find(key);
    }

    @Override
    public int purgeExpired(int limit) {
        check();
        return delegate.purgeExpired(limit);
    }

    /** A small outcome limit, so a test can produce a response the store cannot hold. */
    static final int MAX_OUTCOME_BYTES = 256 * 1024;

    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities c = delegate.capabilities();
        return new StoreCapabilities(c.nativeExpiry(), c.serverClock(), MAX_OUTCOME_BYTES);
    }
}
