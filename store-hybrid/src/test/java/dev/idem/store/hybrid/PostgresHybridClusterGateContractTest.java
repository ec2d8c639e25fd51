package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The store test kit on the hybrid store with its gate on a three-master Redis Cluster, over Postgres.
 */
class PostgresHybridClusterGateContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.CLUSTER_GATE);
    }
}
