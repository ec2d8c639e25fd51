package dev.idem.store.redis;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on a standalone Redis. */
class JedisStandaloneFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, false);
    }
}
