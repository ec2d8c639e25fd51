package dev.idem.store.hybrid;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/**
 * The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on the
 * hybrid store over MariaDB.
 */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
