package dev.idem.store.redis;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.engine.tck.RawBytes;
import dev.idem.store.redis.RedisKeyLayout;
import dev.idem.store.tck.StoreFixture;

/** What a real redis-server holds for a record (its hash, read with Jedis) once outcomes are protected. */
class RedisStandaloneEncryptionAtRestTest extends EncryptionAtRestContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, false);
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) {
        return RawBytes.ofEntries(StandaloneClients.A.hgetAll(
                RedisKeyLayout.withPrefix(RedisIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(key)));
    }
}
