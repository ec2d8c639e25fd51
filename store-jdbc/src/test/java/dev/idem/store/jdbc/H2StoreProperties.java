package dev.idem.store.jdbc;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

class H2StoreProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.H2);
    }
}
