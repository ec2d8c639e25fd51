package dev.idem.store.hybrid;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on the hybrid store in the transactional mode (complete and checkpoint in the caller's database transaction), over Postgres. */
class PostgresHybridTransactionalNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.TRANSACTIONAL);
    }
}
