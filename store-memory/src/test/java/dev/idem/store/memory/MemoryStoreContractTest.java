package dev.idem.store.memory;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

class MemoryStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new MemoryStoreFixture();
    }
}
