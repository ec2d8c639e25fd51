package dev.idem.store.dynamodb;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine-level fuzz of the kit on this backend. */
class DynamoDbEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
