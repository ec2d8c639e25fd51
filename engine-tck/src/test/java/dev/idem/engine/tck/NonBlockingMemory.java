package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.tck.AnswerGate;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A store with a non-blocking form over a blocking one (the memory store in the kit's tests):
 * each operation of the form runs the {@code form...} method on another thread and completes its
 * stage there, as a client's I/O thread would. The memory store sits behind a gate, so a test can
 * hold its answers ({@link #holdAnswers()}). Mutants override the form's methods.
 */
class NonBlockingMemory extends ForwardingIdempotencyStore {
    private static final ExecutorService ANSWERS = Executors.newCachedThreadPool(task -> {
        Thread t = new Thread(task, "nb-memory-answers");
        t.setDaemon(true);
        return t;
    });

    private final NonBlockingStore form = new Form();
    /** The backend's answers (both forms'), which a test may hold. */
    private final AnswerGate gate;

    NonBlockingMemory(IdempotencyStore delegate) {
        this(delegate, new AnswerGate());
    }

    private NonBlockingMemory(IdempotencyStore delegate, AnswerGate gate) {
        super(new ForwardingIdempotencyStore(delegate) {
            @Override
            protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                gate.pass();
                return call.get();
            }
        });
        this.gate = gate;
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.of(form);
    }

    /** Holds every answer of the memory store behind both forms until the hold is closed. */
    StoreFixture.AnswersHeld holdAnswers() {
        return gate.hold();
    }

    /**
     * How the form answers {@code call} (which reaches the store behind the gate): on another
     * thread, as a client's I/O thread would. A mutant answers otherwise.
     */
    <T> CompletionStage<T> answer(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, ANSWERS);
    }

    /** The records the form acts on: the blocking operations' (behind the gate). */
    IdempotencyStore formStore() {
        return delegate();
    }

    /** The gate in front of the store's answers, for a mutant's store of its own. */
    AnswerGate gate() {
        return gate;
    }

    ClaimResult formClaim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return formStore().claim(key, fingerprint, token, lease, ttl);
    }

    boolean formComplete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return formStore().complete(key, token, outcome, ttl);
    }

    private final class Form implements NonBlockingStore {
        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return answer(() -> formClaim(key, fingerprint, fencingToken, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
            return answer(() -> formComplete(key, fencingToken, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return answer(() -> formStore().release(key, fencingToken));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return answer(() -> formStore().checkpoint(key, fencingToken, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            return answer(() -> formStore().extendLease(key, fencingToken, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return answer(() -> formStore().find(key));
        }
    }
}
