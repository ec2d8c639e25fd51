package dev.idem.store.dynamodb;

import dev.idem.engine.tck.NearCacheContract;
import dev.idem.store.tck.StoreFixture;

/** The near-cache kit on this backend. */
class DynamoDbNearCacheTest extends NearCacheContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
