package dev.idem.store.redis;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine-level fuzz of the kit on this backend. */
class RedisClusterEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(ClusterClients.A, ClusterClients.B);
    }
}
