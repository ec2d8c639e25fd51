package dev.idem.store.jdbc;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

class MariaDbStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.MARIADB);
    }
}
