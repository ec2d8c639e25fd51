package dev.idem.grpc;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
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
}
