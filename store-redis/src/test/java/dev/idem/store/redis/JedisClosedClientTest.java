package dev.idem.store.redis;

import static dev.idem.store.redis.RedisClientFailureTest.refusedEveryCall;
import static dev.idem.store.redis.RedisClientFailureTest.storeError;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.jedis.JedisScriptClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

/** A Jedis client the application closed under a working store: every call is a non-retryable store error. */
@Timeout(60)
class JedisClosedClientTest {
    @Test
    void aJedisClientTheApplicationClosedIsANonRetryableError() {
        UnifiedJedis jedis = EmbeddedRedis.client(EmbeddedRedis.standalonePort());
        RedisIdempotencyStore store = RedisIdempotencyStore.create(JedisScriptClient.of(jedis));
        store.find(IdempotencyKey.of("closed", "op", "open"));
        jedis.close();
        refusedEveryCall(store, storeError(false, "closed"));
    }
}
