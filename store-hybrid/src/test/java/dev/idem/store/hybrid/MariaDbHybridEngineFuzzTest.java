package dev.idem.store.hybrid;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The engine kit's fuzz on the hybrid store over MariaDB. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
