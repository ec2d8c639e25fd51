package dev.idem.store.redis;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The step saga against a real redis-server started by the tests. */
class JedisStandaloneStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, false);
    }
}
