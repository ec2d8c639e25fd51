package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

/** The kit's model-based properties against a real redis-server. */
class RedisStandaloneProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(StandaloneClients.A, StandaloneClients.B);
    }
}
