package dev.idem.store.hybrid;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The engine kit's fault injection on the hybrid store with its gate on Lettuce, over PostgreSQL. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class PostgresHybridLettuceFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES, HybridFixture.Variant.LETTUCE);
    }
}
