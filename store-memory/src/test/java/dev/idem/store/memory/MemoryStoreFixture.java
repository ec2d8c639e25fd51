package dev.idem.store.memory;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;

final class MemoryStoreFixture implements StoreFixture {
    final MutableClock clock = new MutableClock();
    final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

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
}
