package dev.idem.store.redis;

import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit through the non-blocking form on a three-master cluster over Lettuce (RESP3, String-codec connections). */
class LettuceClusterNonBlockingContractTest extends NonBlockingStoreContract {
    @Override
    protected StoreFixture createStoreFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
