package dev.idem.store.memory;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;

/** ServiceLoader entry: selects the in-memory store (on the engine's clock) by presence on the class path. */
public final class MemoryStoreProvider implements StoreProvider {
    /** Public no-argument constructor for ServiceLoader. */
    public MemoryStoreProvider() {
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public IdempotencyStore create(Context context) {
        return MemoryIdempotencyStore.builder().clock(context.clock()).build();
    }
}
