package dev.idem.http;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import java.time.Duration;
import java.util.function.Supplier;

/** A real store that can be switched off, failing like a store whose backend is gone. */
final class SwitchableStore extends ForwardingIdempotencyStore {
    volatile boolean down;
    /** When set, complete stores what it makes of the outcome instead (tampering, cutting short). */
    volatile java.util.function.UnaryOperator<byte[]> outcomeWritten;

    SwitchableStore(IdempotencyStore delegate) {
        super(delegate);
    }

    /** Every key claimed through this store, by its client key: what the adapter made of each request. */
    final java.util.Map<String, java.util.Set<IdempotencyKey>> claimed = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        if (operation == Operation.CLAIM) {
            claimed.computeIfAbsent(key.key(), k -> java.util.concurrent.ConcurrentHashMap.newKeySet()).add(key);
        }
        if (down) {
            throw new StoreUnavailableException("connection refused (test outage)", null, true);
        }
        return call.get();
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        java.util.function.UnaryOperator<byte[]> written = outcomeWritten;
        return super.complete(key, fencingToken, written == null ? outcome : written.apply(outcome), ttl);
    }

    /** A small outcome limit, so a test can produce a response the store cannot hold. */
    static final int MAX_OUTCOME_BYTES = 256 * 1024;

    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities c = delegate().capabilities();
        return new StoreCapabilities(c.nativeExpiry(), c.serverClock(), MAX_OUTCOME_BYTES);
    }
}
