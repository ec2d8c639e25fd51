package dev.idem.store.hybrid;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The engine kit's step sagas (workers killed around every step) on the hybrid store over MariaDB. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }
}
