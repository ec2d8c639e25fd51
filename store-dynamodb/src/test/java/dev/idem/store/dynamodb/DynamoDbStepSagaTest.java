package dev.idem.store.dynamodb;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The step saga against DynamoDB Local, on a {@code MutableClock}. */
class DynamoDbStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture();
    }
}
