package dev.idem.store.redis;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's caller isolation on a standalone Redis through Jedis. */
class JedisStandaloneCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, false);
    }
}
