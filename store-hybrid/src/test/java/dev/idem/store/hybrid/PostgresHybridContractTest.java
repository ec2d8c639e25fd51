package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The store test kit on the hybrid store: embedded Redis in front of Postgres, with pauses of up
 * to a few ms around some database statements (the MariaDB suite runs without), so the kit's races and
 * histories meet the gate's and the database's steps in many more orders.
 */
class PostgresHybridContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.JITTERY);
    }
}
