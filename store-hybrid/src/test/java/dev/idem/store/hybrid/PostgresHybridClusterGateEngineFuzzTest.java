package dev.idem.store.hybrid;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/**
 * The engine kit's fuzz on the hybrid store with its gate on a three-master Redis Cluster, over
 * Postgres.
 */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class PostgresHybridClusterGateEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.CLUSTER_GATE);
    }
}
