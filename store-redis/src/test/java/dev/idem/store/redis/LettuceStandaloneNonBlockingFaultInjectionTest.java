package dev.idem.store.redis;

import dev.idem.engine.tck.NonBlockingFaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's fault injection of the asynchronous call, through the non-blocking form on a standalone server over Lettuce. */
class LettuceStandaloneNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, false);
    }
}
