package dev.idem.store.hybrid;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

/** The kit's jqwik properties (stateful model test, races) on the hybrid store over MariaDB. */
class MariaDbHybridProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
