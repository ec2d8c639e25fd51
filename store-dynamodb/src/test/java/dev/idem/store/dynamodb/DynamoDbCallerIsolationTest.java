package dev.idem.store.dynamodb;

import dev.idem.engine.tck.CallerIsolationContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's caller isolation on DynamoDB Local. */
class DynamoDbCallerIsolationTest extends CallerIsolationContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
