package dev.idem.store.redis;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on a three-master cluster through Lettuce. */
class LettuceClusterNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
