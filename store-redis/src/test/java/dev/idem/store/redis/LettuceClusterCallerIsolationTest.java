package dev.idem.store.redis;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's caller isolation on a three-master cluster through Lettuce (its non-blocking form too). */
class LettuceClusterCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
