package dev.idem.store.hybrid;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import redis.clients.jedis.UnifiedJedis;

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
        TRANSACTIONAL
    }

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final IdempotencyStore store;
    private final IdempotencyStore other;

    HybridFixture(Databases db) {
        this(db, Variant.PLAIN);
    }

    HybridFixture(Databases db, Variant variant) {
        boolean cluster = variant == Variant.CLUSTER_GATE;
        this.store = store(variant, cluster ? GateRedis.Cluster.A : GateRedis.Shared.A, db.dataSource(), 1);
        this.other = store(variant, cluster ? GateRedis.Cluster.B : GateRedis.Shared.B, db.otherDataSource(), 2);
    }

    private IdempotencyStore store(Variant variant, UnifiedJedis gate, DataSource db, long seed) {
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
