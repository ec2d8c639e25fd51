package dev.idem.store.dynamodb;

import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.store.tck.StoreFixture;

/** The kit's fault injection (every store call failed in turn, skewed and stepped clocks) on DynamoDB Local. */
class DynamoDbFaultInjectionTest extends FaultInjectionContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
