package dev.idem.store.redis;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import redis.clients.jedis.UnifiedJedis;

/**
 * The test kit's view of a Redis store: two stores on two separate clients (two
 * "processes") on the same server or cluster. Leases are judged by the server clock, so
 * letting time pass means really sleeping; the lease is short to keep that cheap.
 */
final class RedisFixture implements StoreFixture {
    private final IdempotencyStore store;
    private final IdempotencyStore other;

    RedisFixture(UnifiedJedis client, UnifiedJedis otherClient) {
        this.store = RedisIdempotencyStore.create(client);
        this.other = RedisIdempotencyStore.builder(otherClient).build();
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public IdempotencyStore otherStore() {
        return other;
    }

    @Override
    public void advance(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis() + 1);
    }

    @Override
    public Duration lease() {
        return Duration.ofMillis(300);
    }

    @Override
    public Duration ttl() {
        return Duration.ofMillis(900);
    }

    @Override
    public Duration slack() {
        // Redis TIME and the JVM clock tick independently; this covers rounding and scheduling.
        return Duration.ofMillis(60);
    }
}
