package dev.idem.store.hybrid;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on the hybrid store with its gate on a three-master Redis Cluster, over Postgres. */
class PostgresHybridClusterGateNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.CLUSTER_GATE);
    }
}
