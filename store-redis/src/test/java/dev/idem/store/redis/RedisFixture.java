package dev.idem.store.redis;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;

/**
 * The test kit's view of a Redis store: two stores on two separate clients (two
 * "processes") on the same server or cluster, sharing one {@link MutableClock} that
 * replaces the server's {@code TIME} in the same scripts. Time passes by moving the clock,
 * never by sleeping, and the kit's default 30 s lease is far longer than any pause of a
 * loaded machine.
 */
final class RedisFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final IdempotencyStore store;
    private final IdempotencyStore other;

    RedisFixture(RedisScriptClient client, RedisScriptClient otherClient) {
        this.store = RedisIdempotencyStore.builder(client).clock(clock).build();
        this.other = RedisIdempotencyStore.builder(otherClient).clock(clock).build();
    }

    /** Two stores through {@code client}'s library, on the shared cluster or standalone server. */
    RedisFixture(Client client, boolean cluster) {
        this(client.on(cluster, 0), client.on(cluster, 1));
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
    public void advance(Duration d) {
        clock.advance(d);
    }

    @Override
    public boolean clockIsSimulated() {
        return true;
    }

    @Override
    public void close() {
        store.close();
        other.close();
    }
}
