package dev.idem.engine.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** The memory store on a {@link MutableClock}, optionally behind a wrapper (the kit's own mutants). */
final class MemoryFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock();
    private final IdempotencyStore store;

    private MemoryFixture(UnaryOperator<IdempotencyStore> wrapper) {
        this.store = wrapper.apply(MemoryIdempotencyStore.builder().clock(clock).build());
    }

    static MemoryFixture create() {
        return new MemoryFixture(UnaryOperator.identity());
    }

    static MemoryFixture wrapped(UnaryOperator<IdempotencyStore> wrapper) {
        return new MemoryFixture(wrapper);
    }

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
