package dev.idem.store.redis;

import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit through the non-blocking form on a standalone server over Lettuce (RESP3, String-codec connections). */
class LettuceStandaloneNonBlockingContractTest extends NonBlockingStoreContract {
    @Override
    protected StoreFixture createStoreFixture() {
        return new RedisFixture(Client.LETTUCE, false);
    }
}
