package dev.idem.store.jdbc;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's caller isolation on this backend. */
class MariaDbCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.MARIADB);
    }
}
