package dev.idem.store.jdbc;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on this backend. */
class PostgresNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.POSTGRES);
    }
}
