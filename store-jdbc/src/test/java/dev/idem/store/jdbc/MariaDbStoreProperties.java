package dev.idem.store.jdbc;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

class MariaDbStoreProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.MARIADB);
    }
}
