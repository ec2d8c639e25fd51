package dev.idem.store.hybrid;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on the
 * hybrid store over MariaDB.
 */
class MariaDbHybridFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
