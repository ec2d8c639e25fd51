package dev.idem.store.hybrid;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The engine kit's fuzz on the hybrid store with its gate on a three-master Redis Cluster, over
 * Postgres.
 */
class PostgresHybridClusterGateEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.CLUSTER_GATE);
    }
}
