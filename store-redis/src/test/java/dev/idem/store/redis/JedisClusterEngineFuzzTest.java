package dev.idem.store.redis;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine-level fuzz of the kit on this backend. */
class JedisClusterEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }
}
