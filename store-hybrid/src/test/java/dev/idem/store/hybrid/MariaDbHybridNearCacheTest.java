package dev.idem.store.hybrid;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on the hybrid store over MariaDB. */
class MariaDbHybridNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
