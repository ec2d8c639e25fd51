package dev.idem.engine.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;

class MemoryEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        MutableClock clock = new MutableClock();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        return new StoreFixture() {
            @Override
            public IdempotencyStore store() {
                return store;
            }

            @Override
            public void advance(Duration d) {
                clock.advance(d);
            }

            @Override
            public boolean clockIsSimulated() {
                return true;
            }
        };
    }
}
