package dev.idem.store.dynamodb;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The full store contract against DynamoDB Local, on a {@code MutableClock}. */
class DynamoDbStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
