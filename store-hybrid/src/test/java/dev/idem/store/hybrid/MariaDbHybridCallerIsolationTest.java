package dev.idem.store.hybrid;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The engine kit's caller isolation on the hybrid store over MariaDB. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
