package dev.idem.store.memory;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

class MemoryStoreProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new MemoryStoreFixture();
    }
}
