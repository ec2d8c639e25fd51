package dev.idem.store.redis;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The step saga on a standalone server through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
class LettuceStandaloneStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, false);
    }
}
