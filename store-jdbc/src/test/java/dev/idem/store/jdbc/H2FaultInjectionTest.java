package dev.idem.store.jdbc;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on H2. */
class H2FaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.H2);
    }
}
