package dev.idem.engine.tck;

import dev.idem.store.tck.StoreFixture;

class MemoryCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return MemoryFixture.create();
    }
}
