package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The fenced writes that end an execution ({@link Recorder}), and the pause between their
 * retries, in one form for both drivers: the blocking call makes them on its own thread and
 * sleeps on the engine's sleeper (every future it gets is already complete), the asynchronous
 * call on a {@link NonBlockingStore} sends them through the engine's non-blocking lane and
 * pauses on the scheduler, holding no thread. So how a key ends is decided once, in
 * {@link Recorder} and {@link Execution#finish}.
 */
abstract class StoreWrites {
    final IdempotencyEngine engine;
    final IdempotencyKey key;

    StoreWrites(IdempotencyEngine engine, IdempotencyKey key) {
        this.engine = engine;
        this.key = key;
    }

    abstract CompletableFuture<Boolean> complete(long token, byte[] outcome, Duration ttl);

    abstract CompletableFuture<Boolean> release(long token);

    /** A lease extension that reports only whether the token was current. */
    abstract CompletableFuture<Boolean> extendLease(long token, Duration lease);

    /** Completes after {@code d}; exceptionally if the wait was cut short (the retries then stop). */
    abstract CompletableFuture<Void> pause(Duration d);

    /** The blocking store's writes, on the calling thread. */
    static StoreWrites blocking(IdempotencyEngine engine, IdempotencyKey key) {
        return new StoreWrites(engine, key) {
            @Override
            CompletableFuture<Boolean> complete(long token, byte[] outcome, Duration ttl) {
                // Not through now(): on every first execution, and a lambda less to allocate.
                try {
                    return done(engine.store.complete(key, token, outcome, ttl));
                } catch (RuntimeException | Error e) {
                    return CompletableFuture.failedFuture(e);
                }
            }

            @Override
            CompletableFuture<Boolean> release(long token) {
                return now(() -> engine.store.release(key, token));
            }

            @Override
            CompletableFuture<Boolean> extendLease(long token, Duration lease) {
                return now(() -> engine.store.extendLease(key, token, lease).isPresent());
            }

            @Override
            CompletableFuture<Void> pause(Duration d) {
                try {
                    engine.sleeper.sleep(d);
                    return CompletableFuture.completedFuture(null);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return CompletableFuture.failedFuture(e);
                }
            }
        };
    }

    /** The non-blocking store's writes, through the engine's non-blocking lane (held claims first). */
    static StoreWrites nonBlocking(IdempotencyEngine engine, IdempotencyKey key) {
        NonBlockingStore store = engine.nonBlocking;
        StoreLane lane = engine.async.nonBlockingLane;
        return new StoreWrites(engine, key) {
            @Override
            CompletableFuture<Boolean> complete(long token, byte[] outcome, Duration ttl) {
                return lane.start(true, () -> store.complete(key, token, outcome, ttl));
            }

            @Override
            CompletableFuture<Boolean> release(long token) {
                return lane.start(true, () -> store.release(key, token));
            }

            @Override
            CompletableFuture<Boolean> extendLease(long token, Duration lease) {
                return lane.start(true, () -> store.extendLease(key, token, lease).thenApply(o -> o.isPresent()));
            }

            @Override
            CompletableFuture<Void> pause(Duration d) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                try {
                    Scheduler.Cancellable ignored = engine.async.scheduler().schedule(d, () ->
                            hop(() -> done.complete(null), done));
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
                return done;
            }

            // The scheduler's thread only hands over, as for waiting callers' polls.
            private void hop(Runnable task, CompletableFuture<Void> done) {
                try {
                    engine.async.executor().execute(task);
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            }
        };
    }

    // Shared: they are complete already, and never leave the engine (nothing may obtrude on them).
    static final CompletableFuture<Boolean> TRUE = CompletableFuture.completedFuture(true);
    static final CompletableFuture<Boolean> FALSE = CompletableFuture.completedFuture(false);

    /** A write's answer as a stage, without allocating one. */
    static CompletableFuture<Boolean> done(boolean answer) {
        return answer ? TRUE : FALSE;
    }

    private static <R> CompletableFuture<R> now(Supplier<R> write) {
        try {
            return CompletableFuture.completedFuture(write.get());
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Runs a fenced write, trying again on a retryable {@link StoreUnavailableException} up to the
     * engine's {@code completeAttempts}, pausing 50 ms, 100 ms, ... in between; the one place where
     * a write after the work waits. Fails with the last failure if no attempt succeeded.
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
            Throwable cause = AsyncExecution.unwrap(failure);
            if (!(cause instanceof StoreUnavailableException) || !((StoreUnavailableException) cause).retryable()
                    || i + 1 >= engine.completeAttempts) {
                return CompletableFuture.<Boolean>failedFuture(cause);
            }
            return then(pause(Duration.ofMillis(50L << i)), (v, cut) -> cut == null ? retried(write.get(), write, i + 1)
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
            Throwable cause = AsyncExecution.unwrap(e);
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
