package dev.idem.store.dynamodb;

import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;

/** The store kit through the non-blocking form over a {@code DynamoDbAsyncClient}. */
class DynamoDbNonBlockingContractTest extends NonBlockingStoreContract {
    @Override
    protected StoreFixture createStoreFixture() {
        return new DynamoDbAsyncFixture();
    }
}
