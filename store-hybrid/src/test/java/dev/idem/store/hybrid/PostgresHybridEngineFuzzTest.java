package dev.idem.store.hybrid;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine kit's fuzz on the hybrid store over Postgres. */
class PostgresHybridEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.POSTGRES);
    }
}
