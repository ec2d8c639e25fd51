package dev.idem.store.jdbc;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on MariaDB. */
class MariaDbFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.MARIADB);
    }
}
