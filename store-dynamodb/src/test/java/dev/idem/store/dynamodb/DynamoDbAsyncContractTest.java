package dev.idem.store.dynamodb;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit through the blocking operations of the store over a {@code DynamoDbAsyncClient}. */
class DynamoDbAsyncContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbAsyncFixture();
    }
}
