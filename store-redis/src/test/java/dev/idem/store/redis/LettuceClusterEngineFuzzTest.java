package dev.idem.store.redis;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine-level fuzz on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
class LettuceClusterEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
