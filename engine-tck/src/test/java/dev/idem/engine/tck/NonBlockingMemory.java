package dev.idem.engine.tck;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A store with a non-blocking form over a blocking one (the memory store in the kit's tests):
 * each operation of the form runs the {@code form...} method on another thread and completes its
 * stage there, as a client's I/O thread would. Mutants override the form's methods.
 */
class NonBlockingMemory extends ForwardingIdempotencyStore {
    private static final ExecutorService ANSWERS = Executors.newCachedThreadPool(task -> {
        Thread t = new Thread(task, "nb-memory-answers");
        t.setDaemon(true);
        return t;
    });

    private final NonBlockingStore form = new Form();

    NonBlockingMemory(IdempotencyStore delegate) {
        super(delegate);
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.of(form);
    }

    ClaimResult formClaim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return delegate().claim(key, fingerprint, token, lease, ttl);
    }

    boolean formComplete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return delegate().complete(key, token, outcome, ttl);
    }

    private final class Form implements NonBlockingStore {
        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return CompletableFuture.supplyAsync(() -> formClaim(key, fingerprint, fencingToken, lease, ttl), ANSWERS);
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
            return CompletableFuture.supplyAsync(() -> formComplete(key, fencingToken, outcome, ttl), ANSWERS);
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return CompletableFuture.supplyAsync(() -> delegate().release(key, fencingToken), ANSWERS);
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return CompletableFuture.supplyAsync(() -> delegate().checkpoint(key, fencingToken, journal), ANSWERS);
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            return CompletableFuture.supplyAsync(() -> delegate().extendLease(key, fencingToken, lease), ANSWERS);
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return CompletableFuture.supplyAsync(() -> delegate().find(key), ANSWERS);
        }
    }
}
