package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The store test kit on the hybrid store in the transactional mode (complete and checkpoint in the
 * caller's database transaction, next to a business write), over Postgres.
 */
class PostgresHybridTransactionalContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.TRANSACTIONAL);
    }
}
