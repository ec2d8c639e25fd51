package dev.idem.store.jdbc;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

class H2StepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.H2);
    }
}
