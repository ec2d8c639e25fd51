package dev.idem.store.redis;

import dev.idem.engine.tck.NonBlockingFaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's fault injection of the asynchronous call, through the non-blocking form on a three-master cluster over Lettuce. */
class LettuceClusterNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
