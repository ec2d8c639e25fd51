package dev.idem.engine;

import dev.idem.api.StoreUnavailableException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The one place where the asynchronous path hands a store call over: at most {@code width} of an
 * engine's asynchronous store calls are under way at once, the rest wait here, in no thread, and a
 * call of a claim already held (the end of a work, a give-back) goes before the waiting claims. So
 * however many callers an engine has, the store sees at most {@code width} of its asynchronous
 * calls at once, and a lease renewal (which does not pass through here, see
 * {@link AsyncRuntime#renewals()}) queues behind at most that many in the store's own connection
 * pool or pipeline.
 *
 * <p>A blocking lane runs each call on the executor and hands its result on after its slot is
 * given back, on the thread that ran it, so what follows (judging a claim, starting the work) does
 * not hold a slot. A non-blocking lane (over a {@link dev.idem.api.store.NonBlockingStore}) starts each
 * call on the thread that hands it in (the call returns at once) and holds its slot until the
 * store's stage completes, on the client's I/O thread; its future is then completed on the
 * executor, never on that I/O thread, so nothing the engine does next runs on an event loop.
 *
 * <p>An executor that refuses a call (or a hop) of a held claim does not lose it: it runs on
 * {@code fallback} (the engine's own renewal threads), else on the calling thread, because its
 * outcome must be stored. A refused blocking claim is answered with
 * {@link StoreUnavailableException}; nothing is held then. The answer of a non-blocking claim is
 * never dropped (the claim may have won the key): a refused hop runs on the fallback too.
 */
final class StoreLane {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final int width;
    private final boolean nonBlocking;
    private final Supplier<Executor> executor;
    private final Supplier<Executor> fallback;
    private final ArrayDeque<Call<?>> holding = new ArrayDeque<>();
    private final ArrayDeque<Call<?>> claims = new ArrayDeque<>();
    /** Non-blocking calls this thread is starting: a call whose stage completes at once must not recurse. */
    private final ThreadLocal<ArrayDeque<Call<?>>> starting = new ThreadLocal<>();
    private int running;

    StoreLane(int width, Supplier<Executor> executor, Supplier<Executor> fallback) {
        this(width, false, executor, fallback);
    }

    StoreLane(int width, boolean nonBlocking, Supplier<Executor> executor, Supplier<Executor> fallback) {
        this.width = width;
        this.nonBlocking = nonBlocking;
        this.executor = executor;
        this.fallback = fallback;
    }

    /**
     * Runs the blocking {@code storeCall} on the executor when a slot is free, and hands its
     * result to {@code then} on that thread once the slot is given back (no future between them:
     * this is every async call's path over a blocking store).
     *
     * @param holdsClaim whether the caller holds the key's claim (its call goes first and is never dropped)
     * @param then gets the call's result, or its exception (unwrapped), exactly once
     */
    <R> void call(boolean holdsClaim, Supplier<R> storeCall, BiConsumer<? super R, Throwable> then) {
        enter(new Call<>(holdsClaim, null, storeCall, then));
    }

    /**
     * Starts the non-blocking {@code storeCall} when a slot is free; only on a non-blocking lane.
     *
     * @param holdsClaim whether the caller holds the key's claim (its call goes first)
     * @return the call's result, or its exception, completed on the executor
     */
    <R> CompletableFuture<R> start(boolean holdsClaim, Supplier<? extends CompletionStage<R>> storeCall) {
        CompletableFuture<R> result = new CompletableFuture<>();
        enter(new Call<R>(holdsClaim, storeCall, null, (value, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        }));
        return result;
    }

    private void enter(Call<?> call) {
        synchronized (this) {
            if (running >= width) {
                (call.holdsClaim ? holding : claims).add(call);
                return;
            }
            running++;
        }
        dispatch(call);
    }

    /** Store calls under way now, for tests. */
    synchronized int running() {
        return running;
    }

    private void dispatch(Call<?> first) {
        if (nonBlocking) {
            startAll(first);
            return;
        }
        // A loop, not recursion: an executor that refuses everything must not grow the stack.
        for (Call<?> call = first; call != null; call = call.refused ? next() : null) {
            try {
                executor.get().execute(call);
            } catch (RuntimeException refused) {
                if (call.holdsClaim) {
                    runHolding(call, refused);
                } else {
                    call.refused = true;
                    call.answer(null, new StoreUnavailableException("the engine's async executor"
                            + " refused a store call: " + refused, refused, true));
                }
            }
        }
    }

    /** Starts a non-blocking call, and those that follow calls completing at once, in a loop. */
    private void startAll(Call<?> first) {
        ArrayDeque<Call<?>> queue = starting.get();
        if (queue != null) {
            queue.add(first);
            return;
        }
        queue = new ArrayDeque<>();
        queue.add(first);
        starting.set(queue);
        try {
            for (Call<?> call = queue.poll(); call != null; call = queue.poll()) {
                call.run();
            }
        } finally {
            starting.remove();
        }
    }

    private void runHolding(Runnable call, RuntimeException refused) {
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
        /** A non-blocking call's body, or null. */
        final Supplier<? extends CompletionStage<R>> body;
        /** A blocking call's body (answered when it returns: no stage to wrap it in), or null. */
        final Supplier<R> blockingBody;
        final BiConsumer<? super R, Throwable> then;
        boolean refused;

        Call(boolean holdsClaim, Supplier<? extends CompletionStage<R>> body, Supplier<R> blockingBody,
                BiConsumer<? super R, Throwable> then) {
            this.holdsClaim = holdsClaim;
            this.body = body;
            this.blockingBody = blockingBody;
            this.then = then;
        }

        @Override
        public void run() {
            if (blockingBody != null) {
                R value;
                try {
                    value = blockingBody.get();
                } catch (RuntimeException | Error e) {
                    ended(null, e);
                    return;
                }
                ended(value, null);
                return;
            }
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
            Call<?> next = next();
            if (next != null) {
                dispatch(next);
            }
            if (!nonBlocking) {
                answer(value, failure);
                return;
            }
            Runnable hop = () -> answer(value, failure);
            try {
                executor.get().execute(hop);
            } catch (RuntimeException refused) {
                runHolding(hop, refused);
            }
        }

        void answer(R value, Throwable failure) {
            try {
                then.accept(failure == null ? value : null, failure == null ? null : AsyncExecution.unwrap(failure));
            } catch (RuntimeException | Error e) {
                // What follows a store call handles its own failures; one that escapes is a bug, but it
                // must not take the lane's thread (or the slot hand-over after it) with it.
                LOG.log(Level.ERROR, "an async store call's continuation failed", e);
            }
        }
    }
}
