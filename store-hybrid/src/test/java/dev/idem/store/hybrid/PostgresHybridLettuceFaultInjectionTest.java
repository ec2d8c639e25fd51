package dev.idem.store.hybrid;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's fault injection on the hybrid store with its gate on Lettuce, over PostgreSQL. */
class PostgresHybridLettuceFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.LETTUCE);
    }
}
