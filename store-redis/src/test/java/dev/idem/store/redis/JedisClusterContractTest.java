package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store test kit against a real three-master Redis Cluster started by the tests. */
class JedisClusterContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }
}
