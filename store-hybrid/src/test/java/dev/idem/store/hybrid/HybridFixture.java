package dev.idem.store.hybrid;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The kits' view of the hybrid store: two hybrid stores (two "processes"), each with its own
 * Redis client and its own database pool, on one Redis server (or cluster) and one database, all
 * sharing one {@link MutableClock} in place of Redis {@code TIME} and the database clock. Time
 * passes by moving the clock, never by sleeping. Any kit suite is one short subclass that
 * returns {@code new HybridFixture(Databases.X)}, or a {@link Variant} of it.
 */
final class HybridFixture implements StoreFixture {
    /** What a suite runs the kit on, besides the plain store over a standalone Redis. */
    enum Variant {
        /** The plain hybrid store. */
        PLAIN,
        /**
         * Seeded pauses around some database statements ({@link StatementCounter#jittery}), so that
         * concurrent calls' gate and database steps interleave in many more ways (a read of the
         * database can then fall between a prediction and its claim, and reach the gate after the
         * claim was completed).
         */
        JITTERY,
        /** The gate on a three-master Redis Cluster ({@link GateRedis.Cluster}). */
        CLUSTER_GATE,
        /** Complete and checkpoint in the caller's transaction ({@link TransactionalCompletions}). */
        TRANSACTIONAL,
        /** The gate through Lettuce (a String-codec connection of the application's, RESP3). */
        LETTUCE
    }

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final IdempotencyStore store;
    private final IdempotencyStore other;

    HybridFixture(Databases db) {
        this(db, Variant.PLAIN);
    }

    HybridFixture(Databases db, Variant variant) {
        RedisScriptClient[] gates = switch (variant) {
            case CLUSTER_GATE -> new RedisScriptClient[] {JedisScriptClient.of(GateRedis.Cluster.A),
                    JedisScriptClient.of(GateRedis.Cluster.B)};
            case LETTUCE -> new RedisScriptClient[] {GateRedis.lettuce(0), GateRedis.lettuce(1)};
            default -> new RedisScriptClient[] {JedisScriptClient.of(GateRedis.Shared.A),
                    JedisScriptClient.of(GateRedis.Shared.B)};
        };
        this.store = store(variant, gates[0], db.dataSource(), 1);
        this.other = store(variant, gates[1], db.otherDataSource(), 2);
    }

    private IdempotencyStore store(Variant variant, RedisScriptClient gate, DataSource db, long seed) {
        DataSource ds = variant == Variant.JITTERY ? StatementCounter.jittery(db, seed) : db;
        HybridIdempotencyStore hybrid = HybridIdempotencyStore.builder(gate,
                JdbcIdempotencyStore.builder(ds).clock(clock).build()).clock(clock).build();
        return variant == Variant.TRANSACTIONAL ? new TransactionalCompletions(hybrid, ds) : hybrid;
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
