package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
class LettuceClusterContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
