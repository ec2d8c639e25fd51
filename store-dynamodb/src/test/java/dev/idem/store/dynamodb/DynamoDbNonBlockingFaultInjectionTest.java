package dev.idem.store.dynamodb;

import dev.idem.engine.tck.NonBlockingFaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The kit's fault injection of the async engine call on the non-blocking form over a {@code DynamoDbAsyncClient}. */
class DynamoDbNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbAsyncFixture();
    }
}
