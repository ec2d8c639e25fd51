package dev.idem.store.jdbc;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

class PostgresStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.POSTGRES);
    }
}
