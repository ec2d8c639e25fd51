package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Sleeper;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * An asynchronous call's way to a blocking store: each call enters the engine's {@link StoreLane}
 * and runs on an engine thread, never on the caller's. A claim runs on the async executor; a held
 * key's call on the renewal executor, so it never waits in the executor's queue behind claims (a
 * small application pool whose threads all wait for the store's answer to claims would hold it
 * there). Each call's answer is handed on, on the thread that ran it, after its slot went back, so
 * what follows (judging a claim, starting the work) holds no slot.
 *
 * <p>An executor that refuses a held key's call does not lose it: it runs on the other executor,
 * else on the calling thread, because its outcome must be stored. A refused claim is answered with
 * {@link StoreUnavailableException}; nothing is held then.
 */
final class LanedPort implements StorePort {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final IdempotencyStore store;
    private final StoreLane lane;
    private final Supplier<Executor> claims;
    private final Supplier<Executor> holders;
    private final Sleeper sleeper;

    /**
     * @param claims where claims run (the async executor)
     * @param holders where a held key's calls run (the renewal executor)
     * @param sleeper how a retry pauses, on the engine thread that ran the failed write
     */
    LanedPort(IdempotencyStore store, StoreLane lane, Supplier<Executor> claims, Supplier<Executor> holders,
            Sleeper sleeper) {
        this.store = store;
        this.lane = lane;
        this.claims = claims;
        this.holders = holders;
        this.sleeper = sleeper;
    }

    /**
     * Runs the blocking {@code storeCall} in the lane, and hands its result to {@code then} on the
     * thread that ran it once the slot is given back.
     *
     * @param holdsClaim whether the caller holds the key (its call goes first and is never dropped)
     */
    <R> void call(boolean holdsClaim, Supplier<R> storeCall, Answer<? super R> then) {
        lane.enter(new Blocking<>(holdsClaim, storeCall, then));
    }

    private <R> CompletableFuture<R> held(Supplier<R> storeCall) {
        CompletableFuture<R> result = new CompletableFuture<>();
        call(true, storeCall, (value, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    @Override
    public void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            Answer<ClaimResult> then) {
        call(false, () -> store.claim(key, fingerprint, token, lease, ttl), then);
    }

    @Override
    public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return held(() -> store.complete(key, token, outcome, ttl));
    }

    @Override
    public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
        return held(() -> store.release(key, token));
    }

    @Override
    public CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
        return held(() -> store.extendLease(key, token, lease));
    }

    /** Sleeps on the engine's sleeper: the write that failed ran on an engine thread, which may wait. */
    @Override
    public CompletableFuture<Void> pause(Duration d) {
        try {
            sleeper.sleep(d);
            return CompletableFuture.completedFuture(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        }
    }


    /** A blocking store call, run on an executor once it has its slot. */
    private final class Blocking<R> extends StoreLane.Call implements Runnable {
        private final Supplier<R> body;
        private final Answer<? super R> then;

        Blocking(boolean holdsClaim, Supplier<R> body, Answer<? super R> then) {
            super(holdsClaim);
            this.body = body;
            this.then = then;
        }

        @Override
        void start() {
            Executor first = (holdsClaim ? holders : claims).get();
            try {
                first.execute(this);
                return;
            } catch (RuntimeException refused) {
                if (!holdsClaim) {
                    lane.ended(this);
                    answer(then, null, new StoreUnavailableException("the engine's async executor refused a store"
                            + " call: " + refused, refused, true));
                    return;
                }
                LOG.log(Level.WARNING, "an executor refused a call of a claimed key ({0}); it runs elsewhere, so its"
                        + " outcome is not lost", refused.toString());
            }
            try {
                claims.get().execute(this);
            } catch (RuntimeException alsoRefused) {
                run();
            }
        }

        @Override
        public void run() {
            R value;
            try {
                value = body.get();
            } catch (RuntimeException | Error e) {
                lane.ended(this);
                answer(then, null, e);
                return;
            }
            lane.ended(this);
            answer(then, value, null);
        }
    }

    /** Hands an answer on; a continuation that throws is a bug, but must not take the thread with it. */
    static <R> void answer(Answer<? super R> then, R value, Throwable failure) {
        try {
            then.accept(value, failure == null ? null : AsyncCall.unwrap(failure));
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "an async store call's continuation failed", e);
        }
    }
}
