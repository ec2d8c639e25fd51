package dev.idem.store.hybrid;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The engine kit's fault injection on the hybrid store in the transactional mode (complete and
 * checkpoint in the caller's database transaction, next to a business write), over Postgres.
 */
class PostgresHybridTransactionalFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.TRANSACTIONAL);
    }
}
