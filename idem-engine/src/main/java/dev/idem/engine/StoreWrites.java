package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The fenced writes that end a call ({@link Recorder}) as stages over the call's {@link StorePort},
 * and the retries of a write with the port's pause between them: the same code for every way to
 * the store. Over the {@link DirectPort} every stage is complete when it is returned (a boolean one
 * is one of two shared stages) and {@link #then} runs its continuation at once, so a blocking call
 * builds no chain of stages for its writes.
 */
final class StoreWrites {
    private final StorePort port;
    private final IdempotencyKey key;
    private final int attempts;

    /**
     * @param attempts how often a write is tried at most (the engine's {@code completeAttempts})
     */
    StoreWrites(StorePort port, IdempotencyKey key, int attempts) {
        this.port = port;
        this.key = key;
        this.attempts = attempts;
    }

    CompletableFuture<Boolean> complete(long token, byte[] outcome, Duration ttl) {
        return port.complete(key, token, outcome, ttl);
    }

    CompletableFuture<Boolean> release(long token) {
        return port.release(key, token);
    }

    /** A lease extension that reports only whether the token was current. */
    CompletableFuture<Boolean> extendLease(long token, Duration lease) {
        CompletableFuture<Optional<Instant>> extended = port.extendLease(key, token, lease);
        if (succeeded(extended)) {
            return DirectPort.done(extended.join().isPresent());
        }
        return extended.thenApply(Optional::isPresent);
    }

    /**
     * Runs a fenced write, trying again on a retryable {@link StoreUnavailableException} up to the
     * engine's {@code completeAttempts}, pausing 50 ms, 100 ms, ... in between (on the port); the one
     * place where a write after the work waits. Fails with the last failure if no attempt succeeded.
     */
    CompletableFuture<Boolean> withRetries(Supplier<CompletableFuture<Boolean>> write) {
        return retried(write.get(), write, 0);
    }

    /**
     * {@link #withRetries} whose first attempt, {@code sent}, was already made: a caller that
     * finds it succeeded never builds {@code write} for the retries.
     */
    CompletableFuture<Boolean> retried(CompletableFuture<Boolean> sent, Supplier<CompletableFuture<Boolean>> write) {
        return retried(sent, write, 0);
    }

    private CompletableFuture<Boolean> retried(CompletableFuture<Boolean> sent,
            Supplier<CompletableFuture<Boolean>> write, int i) {
        if (succeeded(sent)) {
            return sent;
        }
        return then(sent, (ok, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(ok);
            }
            Throwable cause = AsyncCall.unwrap(failure);
            if (!(cause instanceof StoreUnavailableException) || !((StoreUnavailableException) cause).retryable()
                    || i + 1 >= attempts) {
                return CompletableFuture.<Boolean>failedFuture(cause);
            }
            return then(port.pause(Duration.ofMillis(50L << i)), (v, cut) -> cut == null ? retried(write.get(), write, i + 1)
                    : CompletableFuture.<Boolean>failedFuture(cause));
        });
    }

    /** Whether {@code stage} has already succeeded (every blocking write that did has). */
    static boolean succeeded(CompletableFuture<?> stage) {
        return stage.isDone() && !stage.isCompletedExceptionally();
    }

    /**
     * {@code stage.handle(next).thenCompose(f -> f)}, but for a stage already done {@code next}
     * runs at once on this thread: the blocking driver's writes are all done when it gets them,
     * and should not pay for a chain of stages built only to be unwound (as {@code handle}, a
     * failure may reach {@code next} wrapped in a {@link CompletionException}; every
     * {@code next} unwraps it).
     */
    static <T, U> CompletableFuture<U> then(CompletableFuture<T> stage,
            BiFunction<? super T, Throwable, CompletableFuture<U>> next) {
        if (!stage.isDone()) {
            return stage.handle(next).thenCompose(f -> f);
        }
        T value = null;
        Throwable failure = null;
        try {
            value = stage.join();
        } catch (CompletionException | CancellationException e) {
            failure = e;
        }
        try {
            return next.apply(value, failure);
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The value of a future the blocking driver got (complete already), its failure rethrown as it was. */
    static <R> R join(CompletableFuture<R> done) {
        try {
            return done.join();
        } catch (CompletionException e) {
            Throwable cause = AsyncCall.unwrap(e);
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }
}
