package dev.idem.store.hybrid;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on the hybrid store with its gate on Lettuce, over PostgreSQL. */
class PostgresHybridLettuceNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.LETTUCE);
    }
}
