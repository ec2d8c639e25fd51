package dev.idem.engine.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/** The memory store on a {@link MutableClock}, optionally behind a wrapper (the kit's own mutants). */
final class MemoryFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock();
    private final IdempotencyStore store;

    private MemoryFixture(BiFunction<IdempotencyStore, Clock, IdempotencyStore> wrapper) {
        this.store = wrapper.apply(MemoryIdempotencyStore.builder().clock(clock).build(), clock);
    }

    static MemoryFixture create() {
        return new MemoryFixture((store, clock) -> store);
    }

    static MemoryFixture wrapped(UnaryOperator<IdempotencyStore> wrapper) {
        return new MemoryFixture((store, clock) -> wrapper.apply(store));
    }

    /** The memory store behind {@code wrapper}, which reads the store's clock. */
    static MemoryFixture withClock(BiFunction<IdempotencyStore, Clock, IdempotencyStore> wrapper) {
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

    /** Holds the answers of a store with a non-blocking form in front ({@link NonBlockingMemory}). */
    @Override
    public AnswersHeld holdAnswers() throws Exception {
        if (store instanceof NonBlockingMemory nonBlocking) {
            return nonBlocking.holdAnswers();
        }
        return StoreFixture.super.holdAnswers();
    }
}
