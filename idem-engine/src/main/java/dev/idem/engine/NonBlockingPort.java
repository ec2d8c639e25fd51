package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.NonBlockingStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * An asynchronous call's way to a store's {@link NonBlockingStore}: each call enters the engine's
 * {@link StoreLane} (as wide as the form's {@code maxCallsInFlight()}) and starts on the thread that
 * hands it in, holding no thread while the store answers; it keeps its slot until the store's stage
 * completes, usually on the client's I/O thread, and its answer is then handed to the engine's
 * executor, so nothing the engine does next runs on an event loop. A held key's calls (renewals
 * included) pass through the same lane, ahead of claims and within the quarter kept for them, so the
 * client's own pipeline never holds more of the engine's claims than the lane lets through.
 *
 * <p>An answer is never dropped (a claim may have won the key): if the executor refuses it, it
 * runs on the renewal executor, else on the thread the store answered on.
 */
final class NonBlockingPort implements StorePort {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final NonBlockingStore store;
    private final StoreLane lane;
    private final AsyncRuntime runtime;

    NonBlockingPort(NonBlockingStore store, StoreLane lane, AsyncRuntime runtime) {
        this.store = store;
        this.lane = lane;
        this.runtime = runtime;
    }

    /**
     * Starts the non-blocking {@code storeCall} when a slot is free.
     *
     * @param holdsClaim whether the caller holds the key (its call goes first)
     * @return the call's result, or its (unwrapped) failure, completed on the executor
     */
    <R> CompletableFuture<R> start(boolean holdsClaim, Supplier<? extends CompletionStage<R>> storeCall) {
        CompletableFuture<R> result = new CompletableFuture<>();
        lane.enter(new Staged<R>(holdsClaim, storeCall, (value, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        }));
        return result;
    }

    @Override
    public void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            Answer<ClaimResult> then) {
        lane.enter(new Staged<>(false, () -> store.claim(key, fingerprint, token, lease, ttl), then));
    }

    @Override
    public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return start(true, () -> store.complete(key, token, outcome, ttl));
    }

    @Override
    public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
        return start(true, () -> store.release(key, token));
    }

    @Override
    public CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
        return start(true, () -> store.extendLease(key, token, lease));
    }

    @Override
    public CompletableFuture<Void> pause(Duration d) {
        return runtime.pause(d);
    }


    /** A non-blocking store call: holds its slot until the store's stage completes. */
    private final class Staged<R> extends StoreLane.Call {
        private final Supplier<? extends CompletionStage<R>> body;
        private final Answer<? super R> then;

        Staged(boolean holdsClaim, Supplier<? extends CompletionStage<R>> body, Answer<? super R> then) {
            super(holdsClaim);
            this.body = body;
            this.then = then;
        }

        @Override
        void start() {
            CompletionStage<R> stage;
            try {
                stage = body.get();
                if (stage == null) {
                    throw new StoreUnavailableException("the store returned no stage", null, false);
                }
            } catch (RuntimeException | Error e) {
                ended(null, e);
                return;
            }
            stage.whenComplete(this::ended);
        }

        private void ended(R value, Throwable failure) {
            lane.ended(this);
            Runnable answer = () -> LanedPort.answer(then, value, failure);
            try {
                runtime.executor().execute(answer);
            } catch (RuntimeException refused) {
                LOG.log(Level.WARNING, "the async executor refused the answer of a store call ({0}); it runs on the"
                        + " engine's own threads instead, so it is not lost", refused.toString());
                try {
                    runtime.renewals().execute(answer);
                } catch (RuntimeException alsoRefused) {
                    answer.run();
                }
            }
        }
    }
}
