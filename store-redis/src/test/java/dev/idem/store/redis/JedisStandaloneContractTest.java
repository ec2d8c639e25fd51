package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store test kit against a real redis-server started by the tests. */
class JedisStandaloneContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, false);
    }
}
