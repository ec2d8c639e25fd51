package dev.idem.store.dynamodb;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;

/** The model-based and concurrent properties of the test kit against DynamoDB Local. */
class DynamoDbStoreProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
