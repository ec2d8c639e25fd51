package dev.idem.store.hybrid;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's step sagas (workers killed around every step) on the hybrid store over MariaDB. */
class MariaDbHybridStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
