package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

/** The kit's model-based properties against a real three-master Redis Cluster. */
class JedisClusterProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }
}
