package dev.idem.engine;

import dev.idem.api.StoreUnavailableException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The one place where the asynchronous path hands a store call to the executor: at most
 * {@code width} of an engine's asynchronous store calls run at once, the rest wait here, in no
 * thread, and a call of a claim already held (the end of a work, a give-back) goes before the
 * waiting claims. So however many callers an engine has, the store sees at most {@code width}
 * of its asynchronous calls at once, and a lease renewal (which does not pass through here, see
 * {@link AsyncRuntime#renewals()}) queues behind at most that many in the store's own
 * connection pool.
 *
 * <p>A call's future completes after its slot is given back, on the thread that ran it, so what
 * follows (judging a claim, starting the work) does not hold a slot. An executor that refuses a
 * call of a held claim does not lose it: the call runs on {@code fallback} (the engine's own
 * renewal threads), else on the calling thread, because its outcome must be stored. A refused
 * claim completes its future with {@link StoreUnavailableException}; nothing is held then.
 */
final class StoreLane {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final int width;
    private final Supplier<Executor> executor;
    private final Supplier<Executor> fallback;
    private final ArrayDeque<Call<?>> holding = new ArrayDeque<>();
    private final ArrayDeque<Call<?>> claims = new ArrayDeque<>();
    private int running;

    StoreLane(int width, Supplier<Executor> executor, Supplier<Executor> fallback) {
        this.width = width;
        this.executor = executor;
        this.fallback = fallback;
    }

    /**
     * Runs {@code storeCall} on the executor when a slot is free.
     *
     * @param holdsClaim whether the caller holds the key's claim (its call goes first and is never dropped)
     * @return the call's result, or its exception
     */
    <R> CompletableFuture<R> call(boolean holdsClaim, Supplier<R> storeCall) {
        Call<R> call = new Call<>(holdsClaim, storeCall);
        synchronized (this) {
            if (running >= width) {
                (holdsClaim ? holding : claims).add(call);
                return call.result;
            }
            running++;
        }
        dispatch(call);
        return call.result;
    }

    /** Store calls running now, for tests. */
    synchronized int running() {
        return running;
    }

    private void dispatch(Call<?> first) {
        // A loop, not recursion: an executor that refuses everything must not grow the stack.
        for (Call<?> call = first; call != null; call = call.refused ? next() : null) {
            try {
                executor.get().execute(call);
            } catch (RuntimeException refused) {
                if (call.holdsClaim) {
                    runHolding(call, refused);
                } else {
                    call.refused = true;
                    call.result.completeExceptionally(new StoreUnavailableException("the engine's async executor"
                            + " refused a store call: " + refused, refused, true));
                }
            }
        }
    }

    private void runHolding(Call<?> call, RuntimeException refused) {
        LOG.log(Level.WARNING, "the async executor refused to end a call whose key is claimed ({0}); it runs on the"
                + " engine's own threads instead, so its outcome is not lost", refused.toString());
        try {
            fallback.get().execute(call);
        } catch (RuntimeException alsoRefused) {
            call.run();
        }
    }

    /** Gives a finished call's slot to the next waiting call, or back; returns that call. */
    private synchronized Call<?> next() {
        Call<?> next = holding.poll();
        if (next == null) {
            next = claims.poll();
        }
        if (next == null) {
            running--;
        }
        return next;
    }

    private final class Call<R> implements Runnable {
        final boolean holdsClaim;
        final Supplier<R> body;
        final CompletableFuture<R> result = new CompletableFuture<>();
        boolean refused;

        Call(boolean holdsClaim, Supplier<R> body) {
            this.holdsClaim = holdsClaim;
            this.body = body;
        }

        @Override
        public void run() {
            R value = null;
            Throwable failure = null;
            try {
                value = body.get();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
            Call<?> next = next();
            if (next != null) {
                dispatch(next);
            }
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        }
    }
}
