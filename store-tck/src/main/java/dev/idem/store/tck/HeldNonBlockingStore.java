package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A blocking store given a {@link NonBlockingStore} form whose stages are held until the test
 * {@linkplain #open() opens} them (or {@linkplain #fail fails} them): for testing a decorator's
 * {@link ForwardingIdempotencyStore#aroundAsync} (a timer or span must end when the stage
 * completes, not when it is returned) and the engine's asynchronous path without a remote
 * store. Once open, each form call runs the blocking operation on the common pool. Thread-safe.
 */
public final class HeldNonBlockingStore extends ForwardingIdempotencyStore {
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final AtomicInteger formCalls = new AtomicInteger();
    private final NonBlockingStore form = new Form();

    /**
     * Holds the non-blocking calls of {@code store}.
     *
     * @param store the store whose blocking operations answer
     */
    public HeldNonBlockingStore(IdempotencyStore store) {
        super(store);
    }

    /** Lets every held and later call of the form run and answer. */
    public void open() {
        gate.complete(null);
    }

    /**
     * Fails every held and later call of the form with {@code failure} (unless already opened).
     *
     * @param failure what the stages fail with
     */
    public void fail(RuntimeException failure) {
        gate.completeExceptionally(failure);
    }

    /**
     * How many calls the form received.
     *
     * @return the number of non-blocking calls made so far
     */
    public int formCalls() {
        return formCalls.get();
    }

    /**
     * The held form.
     *
     * @return the form whose stages wait for {@link #open()}
     */
    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.of(form);
    }

    private <T> CompletionStage<T> held(Supplier<T> call) {
        formCalls.incrementAndGet();
        return gate.thenApplyAsync(ignored -> call.get());
    }

    private final class Form implements NonBlockingStore {
        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return held(() -> delegate().claim(key, fingerprint, fencingToken, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                Duration ttl) {
            return held(() -> delegate().complete(key, fencingToken, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return held(() -> delegate().release(key, fencingToken));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return held(() -> delegate().checkpoint(key, fencingToken, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                Duration lease) {
            return held(() -> delegate().extendLease(key, fencingToken, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return held(() -> delegate().find(key));
        }
    }
}
