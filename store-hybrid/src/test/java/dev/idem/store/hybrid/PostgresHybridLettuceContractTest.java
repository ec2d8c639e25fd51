package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The store kit on the hybrid store with its gate on Lettuce (a String-codec connection, RESP3), over PostgreSQL. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class PostgresHybridLettuceContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.LETTUCE);
    }
}
