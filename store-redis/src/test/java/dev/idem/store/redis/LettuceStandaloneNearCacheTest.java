package dev.idem.store.redis;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on a standalone server through Lettuce. */
class LettuceStandaloneNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, false);
    }
}
