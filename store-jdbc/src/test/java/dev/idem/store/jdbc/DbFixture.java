package dev.idem.store.jdbc;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;

/**
 * The test kit's view of one backend: two stores on two pools (two "processes") sharing one
 * {@link MutableClock} that replaces the database clock in the same statements, so time
 * passes by moving the clock, never by sleeping, and leases are long enough that a loaded
 * machine cannot make two calls land a lease apart. The clock starts at the real time, so
 * records stay near the ones of tests on the database clock that share the table.
 */
final class DbFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final JdbcIdempotencyStore store;
    private final JdbcIdempotencyStore other;

    DbFixture(Backend backend) {
        this.store = JdbcIdempotencyStore.builder(backend.dataSource()).clock(clock).build();
        this.other = JdbcIdempotencyStore.builder(backend.otherDataSource()).clock(clock).build();
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
