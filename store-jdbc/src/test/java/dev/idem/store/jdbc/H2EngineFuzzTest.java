package dev.idem.store.jdbc;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;

/** The engine-level fuzz of the kit on this backend. */
class H2EngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.H2);
    }
}
