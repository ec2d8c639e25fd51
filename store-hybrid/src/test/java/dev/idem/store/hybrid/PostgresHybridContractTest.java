package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store test kit on the hybrid store: embedded Redis in front of Postgres. */
class PostgresHybridContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES);
    }
}
