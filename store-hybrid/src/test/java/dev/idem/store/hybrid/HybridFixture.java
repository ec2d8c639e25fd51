package dev.idem.store.hybrid;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreFixture;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.time.Duration;
import java.time.Instant;

/**
 * The kits' view of the hybrid store: two hybrid stores (two "processes"), each with its own
 * Redis client and its own database pool, on one Redis server and one database, all four
 * sharing one {@link MutableClock} in place of Redis {@code TIME} and the database clock. Time
 * passes by moving the clock, never by sleeping. Any kit suite is one short subclass that
 * returns {@code new HybridFixture(Databases.X)}.
 */
final class HybridFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final HybridIdempotencyStore store;
    private final HybridIdempotencyStore other;

    HybridFixture(Databases db) {
        this(db, JedisScriptClient.of(GateRedis.Shared.A), JedisScriptClient.of(GateRedis.Shared.B));
    }

    /** The two stores' gates on the given script clients (Lettuce: {@link GateRedis#lettuce}). */
    HybridFixture(Databases db, RedisScriptClient gate, RedisScriptClient otherGate) {
        this.store = HybridIdempotencyStore.builder(gate,
                JdbcIdempotencyStore.builder(db.dataSource()).clock(clock).build()).clock(clock).build();
        this.other = HybridIdempotencyStore.builder(otherGate,
                JdbcIdempotencyStore.builder(db.otherDataSource()).clock(clock).build()).clock(clock).build();
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
}
