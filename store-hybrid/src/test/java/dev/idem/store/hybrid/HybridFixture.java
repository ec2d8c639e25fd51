package dev.idem.store.hybrid;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreFixture;
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
        this(db, false);
    }

    /**
     * With {@code jittery}, seeded pauses around some database statements
     * ({@link StatementCounter#jittery}), so that concurrent calls' gate and database
     * steps interleave in many more ways (a read of the database can then fall between a prediction
     * and its claim, and reach the gate after the claim was completed).
     */
    HybridFixture(Databases db, boolean jittery) {
        this.store = HybridIdempotencyStore.builder(GateRedis.Shared.A,
                JdbcIdempotencyStore.builder(jittery ? StatementCounter.jittery(db.dataSource(), 1) : db.dataSource())
                        .clock(clock).build()).clock(clock).build();
        this.other = HybridIdempotencyStore.builder(GateRedis.Shared.B,
                JdbcIdempotencyStore.builder(jittery ? StatementCounter.jittery(db.otherDataSource(), 2)
                        : db.otherDataSource()).clock(clock).build()).clock(clock).build();
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
