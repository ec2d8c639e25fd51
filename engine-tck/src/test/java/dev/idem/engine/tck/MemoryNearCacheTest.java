package dev.idem.engine.tck;

import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on the memory store. */
class MemoryNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return MemoryFixture.create();
    }
}
