package dev.idem.store.redis;

import dev.idem.store.redis.spring.SpringDataRedisScriptClient;
import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit through Spring Data Redis' JedisConnectionFactory (standalone), a connection borrowed per call. */
class SpringJedisStandaloneContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(SpringDataRedisScriptClient.of(SpringFactories.JedisStandalone.FACTORY),
                SpringDataRedisScriptClient.of(SpringFactories.JedisStandalone.FACTORY));
    }
}
