package dev.idem.store.redis;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's fault injection on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
class LettuceClusterFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
