package dev.idem.store.dynamodb;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The full store contract against DynamoDB Local with the default (simple key) layout. */
class DynamoDbStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
