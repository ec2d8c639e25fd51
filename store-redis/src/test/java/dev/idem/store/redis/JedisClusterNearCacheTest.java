package dev.idem.store.redis;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on a three-master Redis Cluster through Jedis. */
class JedisClusterNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }
}
