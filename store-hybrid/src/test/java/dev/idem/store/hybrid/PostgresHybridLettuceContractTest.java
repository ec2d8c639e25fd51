package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit on the hybrid store with its gate on Lettuce (a String-codec connection, RESP3), over PostgreSQL. */
class PostgresHybridLettuceContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.LETTUCE);
    }
}
