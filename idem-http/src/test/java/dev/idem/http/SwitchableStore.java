package dev.idem.http;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import java.util.function.Supplier;

/** A real store that can be switched off, failing like a store whose backend is gone. */
final class SwitchableStore extends ForwardingIdempotencyStore {
    volatile boolean down;

    SwitchableStore(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        if (down) {
            throw new StoreUnavailableException("connection refused (test outage)", null, true);
        }
        return call.get();
    }

    /** A small outcome limit, so a test can produce a response the store cannot hold. */
    static final int MAX_OUTCOME_BYTES = 256 * 1024;

    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities c = delegate().capabilities();
        return new StoreCapabilities(c.nativeExpiry(), c.serverClock(), MAX_OUTCOME_BYTES);
    }
}
