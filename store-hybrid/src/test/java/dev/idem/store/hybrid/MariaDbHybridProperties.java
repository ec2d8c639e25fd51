package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;
import net.jqwik.api.Tag;

/** The kit's jqwik properties (stateful model test, races) on the hybrid store over MariaDB. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
