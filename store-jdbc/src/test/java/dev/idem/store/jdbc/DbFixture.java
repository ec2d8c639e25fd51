package dev.idem.store.jdbc;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;

/**
 * The test kit's view of one backend. The store judges time by the database clock, so
 * {@link #advance} really sleeps; the lease is short to keep the suites quick.
 */
final class DbFixture implements StoreFixture {
    private final JdbcIdempotencyStore store;
    private final JdbcIdempotencyStore other;

    DbFixture(Backend backend) {
        this.store = backend.store();
        this.other = backend.otherStore();
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
        Thread.sleep(d.toMillis());
    }

    @Override
    public Duration lease() {
        return Duration.ofMillis(500);
    }

    @Override
    public Duration slack() {
        return Duration.ofMillis(100);
    }
}
