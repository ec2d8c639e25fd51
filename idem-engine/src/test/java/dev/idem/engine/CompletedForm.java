package dev.idem.engine;

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

/**
 * A store with a non-blocking form made of its own blocking operations, each stage completed at
 * once on the caller's thread: for tests of what the engine or a wrapper does with the form's
 * answers, not of when they come.
 */
public final class CompletedForm extends ForwardingIdempotencyStore {
    private final int width;

    /**
     * @param delegate the store whose operations answer
     */
    public CompletedForm(IdempotencyStore delegate) {
        this(delegate, 256);
    }

    /**
     * @param delegate the store whose operations answer
     * @param width what the form declares as {@link NonBlockingStore#maxCallsInFlight()}
     */
    public CompletedForm(IdempotencyStore delegate, int width) {
        super(delegate);
        this.width = width;
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        IdempotencyStore s = delegate();
        return Optional.of(new NonBlockingStore() {
            @Override
            public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                    Duration lease, Duration ttl) {
                return CompletableFuture.completedFuture(s.claim(key, fingerprint, fencingToken, lease, ttl));
            }

            @Override
            public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                    Duration ttl) {
                return CompletableFuture.completedFuture(s.complete(key, fencingToken, outcome, ttl));
            }

            @Override
            public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
                return CompletableFuture.completedFuture(s.release(key, fencingToken));
            }

            @Override
            public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
                return CompletableFuture.completedFuture(s.checkpoint(key, fencingToken, journal));
            }

            @Override
            public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                    Duration lease) {
                return CompletableFuture.completedFuture(s.extendLease(key, fencingToken, lease));
            }

            @Override
            public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
                return CompletableFuture.completedFuture(s.find(key));
            }

            @Override
            public int maxCallsInFlight() {
                return width;
            }
        });
    }
}
