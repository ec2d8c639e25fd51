package dev.idem.store.redis;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The step saga against a real three-master Redis Cluster started by the tests. */
class JedisClusterStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }
}
