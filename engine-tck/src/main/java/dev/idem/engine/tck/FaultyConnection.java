package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * One worker's connection to the store under test: every call goes to the real store, except
 * the {@code failAt}-th, which meets the scripted {@link Fault}. Once the worker crashes its
 * connection is cut first, so nothing it tries afterwards (a release on its way out) reaches
 * the store. Single-threaded, like the worker that owns it.
 *
 * <p>A write can carry a business effect that commits with it ({@link #commitWith}), as a
 * transactional store's checkpoint or completion would: the effect is recorded exactly when the
 * write lands, so a crash or refusal leaves both or neither.
 *
 * <p>If the store offers a {@link NonBlockingStore} form, so does the connection: its calls count
 * with the blocking ones and meet the same faults, delivered through the stage (a lost reply fails
 * the stage after the write landed; a takeover after the call runs when its stage completes; a
 * crash fails the stage with {@link Crash}). An asynchronous worker's calls follow one another,
 * so the connection stays single-threaded in effect; its methods are synchronized for visibility.
 */
final class FaultyConnection extends ForwardingIdempotencyStore {
    /** Where a fault's hook runs when it follows a call's answer: off every store client's threads. */
    private static final Executor HOOKS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "idem-tck-fault-hook");
        t.setDaemon(true);
        return t;
    });

    /** The store operations a worker makes, as the fault report names them. */
    enum Call { CLAIM, CHECKPOINT, COMPLETE, RELEASE, EXTEND, FIND }

    /** What the contract does when a lease-lapse fault fires. */
    interface Hooks {
        /** Lets the worker's lease lapse on every clock. */
        void lapse();

        /** A competitor takes the key over and runs the script to its end. */
        void takeOver();
    }

    /** The worker died here: nothing of it runs any more. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash() {
            super("worker crashed (injected)", null, false, false);
        }
    }

    private final int failAt;
    private final Fault fault;
    private final Hooks hooks;
    private int calls;
    private boolean cut;
    private Runnable commitsWithNextWrite;
    /** The call the fault hit, or null if it has not fired. */
    Call firedOn;
    /**
     * The worker's lease: a lease extension shorter than this after a lost write gives the key
     * back as a release does (the engine's hand-back), so it counts as one.
     */
    Duration lease = Duration.ZERO;
    /**
     * What this worker gave back while one of its journal writes or completions was lost with its
     * effect already run (a transient or permanent failure that reached nothing, no write landed
     * since), or null. A retry would run that effect again at once instead of after the lease.
     */
    String gaveBackInDoubt;
    private Call inDoubt;
    /** Called when a checkpoint or completion lands (returns true). */
    Runnable onWriteLanded = () -> { };
    /** Called just before the fault takes effect, with the call it hits. */
    java.util.function.Consumer<Call> onFault = c -> { };

    private final NonBlockingStore form;

    FaultyConnection(IdempotencyStore delegate, int failAt, Fault fault, Hooks hooks) {
        super(delegate);
        this.failAt = failAt;
        this.fault = fault;
        this.hooks = hooks;
        this.form = delegate.nonBlocking().map(NonBlockingForm::new).orElse(null);
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.ofNullable(form);
    }

    /** A connection that never fails. */
    static FaultyConnection healthy(IdempotencyStore delegate) {
        return new FaultyConnection(delegate, 0, Fault.TRANSIENT, null);
    }

    /** How many calls the worker made (the one a crash cut off included). */
    synchronized int calls() {
        return calls;
    }

    /** Records {@code effect} if and only if the next checkpoint or completion lands. */
    void commitWith(Runnable effect) {
        commitsWithNextWrite = effect;
    }

    private boolean landed(Call kind, boolean ok) {
        Runnable effect = commitsWithNextWrite;
        commitsWithNextWrite = null;
        if (ok && (kind == Call.CHECKPOINT || kind == Call.COMPLETE)) {
            inDoubt = null;
            if (effect != null) {
                effect.run();
            }
            onWriteLanded.run();
        }
        return ok;
    }

    /** A blocking call: the non-blocking path's fault, met on this thread (every stage here is already complete). */
    private <R> R call(Call kind, Supplier<R> op) {
        CompletableFuture<R> done = callLater(kind, () -> {
            try {
                return CompletableFuture.completedFuture(op.get());
            } catch (RuntimeException | Error e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        try {
            return done.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    /** One call with the fault scripted for it, if it is the {@code failAt}-th: the fault arrives through the stage. */
    private synchronized <R> CompletableFuture<R> callLater(Call kind, Supplier<? extends CompletionStage<R>> op) {
        if (cut) {
            commitsWithNextWrite = null;
            return CompletableFuture.failedFuture(new StoreUnavailableException("connection cut: the worker crashed",
                    null, true));
        }
        if (++calls != failAt) {
            return landLater(kind, op);
        }
        firedOn = kind;
        onFault.accept(kind);
        boolean write = kind == Call.CHECKPOINT || kind == Call.COMPLETE;
        if (write && commitsWithNextWrite == null && (fault == Fault.TRANSIENT || fault == Fault.PERMANENT)) {
            inDoubt = kind;
        }
        switch (fault) {
            case TRANSIENT:
                commitsWithNextWrite = null;
                return CompletableFuture.failedFuture(new StoreUnavailableException("injected transient failure of "
                        + kind, null, true));
            case PERMANENT:
                commitsWithNextWrite = null;
                return CompletableFuture.failedFuture(new StoreUnavailableException("injected permanent failure of "
                        + kind, null, false));
            case TIMEOUT_LANDED:
                return landLater(kind, op).handle((r, e) -> {
                    throw new StoreUnavailableException("injected timeout of " + kind + " (the call landed)", null,
                            true);
                });
            case LAPSE_BEFORE:
                hooks.lapse();
                return landLater(kind, op);
            case TAKEOVER_BEFORE:
                hooks.lapse();
                hooks.takeOver();
                return landLater(kind, op);
            case TAKEOVER_AFTER:
                // The takeover is a whole blocking call through another connection: it must not run on the
                // thread that completed this call's stage, which for a non-blocking client is its I/O thread.
                return landLater(kind, op).thenApplyAsync(r -> {
                    hooks.lapse();
                    hooks.takeOver();
                    return r;
                }, HOOKS);
            case CRASH_BEFORE:
                cut = true;
                commitsWithNextWrite = null;
                return CompletableFuture.failedFuture(new Crash());
            case CRASH_AFTER:
                return landLater(kind, op).handle((r, e) -> {
                    synchronized (this) {
                        cut = true;
                    }
                    throw new Crash();
                });
            default:
                throw new AssertionError(fault);
        }
    }

    private <R> CompletableFuture<R> landLater(Call kind, Supplier<? extends CompletionStage<R>> op) {
        CompletableFuture<R> stage;
        try {
            stage = op.get().toCompletableFuture();
        } catch (RuntimeException e) {
            commitsWithNextWrite = null;
            return CompletableFuture.failedFuture(e);
        }
        return stage.whenComplete((result, e) -> {
            synchronized (this) {
                if (e != null) {
                    commitsWithNextWrite = null;
                } else if (result instanceof Boolean) {
                    landed(kind, (Boolean) result);
                } else {
                    commitsWithNextWrite = null;
                }
            }
        });
    }

    /** The non-blocking form: the store's, counted and failed with the blocking calls. */
    private final class NonBlockingForm implements NonBlockingStore {
        private final NonBlockingStore store;

        NonBlockingForm(NonBlockingStore store) {
            this.store = store;
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return callLater(Call.CLAIM, () -> store.claim(key, fingerprint, fencingToken, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
            return callLater(Call.COMPLETE, () -> store.complete(key, fencingToken, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            synchronized (FaultyConnection.this) {
                givingBack("a release");
            }
            return callLater(Call.RELEASE, () -> store.release(key, fencingToken));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return callLater(Call.CHECKPOINT, () -> store.checkpoint(key, fencingToken, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            synchronized (FaultyConnection.this) {
                if (lease.compareTo(FaultyConnection.this.lease) < 0) {
                    givingBack("a lease cut to " + lease);
                }
            }
            return callLater(Call.EXTEND, () -> store.extendLease(key, fencingToken, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return callLater(Call.FIND, () -> store.find(key));
        }

        @Override
        public int maxCallsInFlight() {
            return store.maxCallsInFlight();
        }
    }

    private void givingBack(String how) {
        if (inDoubt != null && gaveBackInDoubt == null && !cut) {
            gaveBackInDoubt = how + " after the lost " + inDoubt;
        }
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> op) {
        switch (operation) {
            case CLAIM:
                return call(Call.CLAIM, op);
            case COMPLETE:
                return call(Call.COMPLETE, op);
            case RELEASE:
                givingBack("a release");
                return call(Call.RELEASE, op);
            case CHECKPOINT:
                return call(Call.CHECKPOINT, op);
            case EXTEND_LEASE:
                return call(Call.EXTEND, op);
            case FIND:
                return call(Call.FIND, op);
            default:
                return op.get(); // housekeeping, not a worker's call: never counted or failed
        }
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        if (lease.compareTo(this.lease) < 0) {
            givingBack("a lease cut to " + lease);
        }
        return super.extendLease(key, fencingToken, lease);
    }

    @Override
    public void close() {
        // The connection shares the store under test with the other workers; closing it closes nothing.
    }
}
