package dev.idem.store.hybrid;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's caller isolation on the hybrid store over MariaDB. */
class MariaDbHybridCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
