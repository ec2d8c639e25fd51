package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/**
 * The store test kit on the hybrid store with its gate on a three-master Redis Cluster, over Postgres.
 */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class PostgresHybridClusterGateContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.CLUSTER_GATE);
    }
}
