package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Counts the store operations (SPI calls) that reach a store with no network of its own:
 * for the in-memory store one SPI call is the round-trip equivalent. {@code capabilities()}
 * is local configuration and not counted.
 */
final class CountingStore extends ForwardingIdempotencyStore implements TripCounter {
    private final AtomicLong calls = new AtomicLong();

    CountingStore(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    public long total() {
        return calls.get();
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        calls.incrementAndGet();
        return call.get();
    }
}
