package dev.idem.engine.tck;

import dev.idem.store.tck.StoreFixture;

/** The non-blocking fault-injection campaign on the memory store behind a non-blocking form. */
class MemoryNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return MemoryFixture.wrapped(NonBlockingMemory::new);
    }
}
