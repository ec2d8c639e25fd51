package dev.idem.engine.tck;

import dev.idem.store.tck.StoreFixture;

class MemoryFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return MemoryFixture.create();
    }
}
