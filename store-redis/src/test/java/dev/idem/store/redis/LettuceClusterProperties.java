package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

/** The kit's model-based properties and linearizable histories on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
class LettuceClusterProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
