package dev.idem.store.redis;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.engine.tck.RawBytes;
import dev.idem.store.redis.RedisKeyLayout;
import dev.idem.store.tck.StoreFixture;

/** What a real three-master Redis Cluster holds for a record (its hash, read with Jedis) once outcomes are protected. */
class RedisClusterEncryptionAtRestTest extends EncryptionAtRestContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.JEDIS, true);
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) {
        return RawBytes.ofEntries(ClusterClients.A.hgetAll(
                RedisKeyLayout.withPrefix(RedisIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(key)));
    }
}
