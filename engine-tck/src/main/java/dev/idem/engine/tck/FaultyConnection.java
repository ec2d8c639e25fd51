package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
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
 */
final class FaultyConnection extends ForwardingIdempotencyStore {
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

    FaultyConnection(IdempotencyStore delegate, int failAt, Fault fault, Hooks hooks) {
        super(delegate);
        this.failAt = failAt;
        this.fault = fault;
        this.hooks = hooks;
    }

    /** A connection that never fails. */
    static FaultyConnection healthy(IdempotencyStore delegate) {
        return new FaultyConnection(delegate, 0, Fault.TRANSIENT, null);
    }

    /** How many calls the worker made (the one a crash cut off included). */
    int calls() {
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

    private <R> R call(Call kind, Supplier<R> op) {
        if (cut) {
            commitsWithNextWrite = null;
            throw new StoreUnavailableException("connection cut: the worker crashed", null, true);
        }
        if (++calls != failAt) {
            return land(kind, op);
        }
        firedOn = kind;
        onFault.accept(kind);
        boolean write = kind == Call.CHECKPOINT || kind == Call.COMPLETE;
        if (write && commitsWithNextWrite == null && (fault == Fault.TRANSIENT || fault == Fault.PERMANENT)) {
            // An effect that does not commit with this write has already run; the write that records it is lost.
            inDoubt = kind;
        }
        switch (fault) {
            case TRANSIENT:
                commitsWithNextWrite = null;
                throw new StoreUnavailableException("injected transient failure of " + kind, null, true);
            case PERMANENT:
                commitsWithNextWrite = null;
                throw new StoreUnavailableException("injected permanent failure of " + kind, null, false);
            case TIMEOUT_LANDED:
                land(kind, op);
                throw new StoreUnavailableException("injected timeout of " + kind + " (the call landed)", null, true);
            case LAPSE_BEFORE:
                hooks.lapse();
                return land(kind, op);
            case TAKEOVER_BEFORE:
                hooks.lapse();
                hooks.takeOver();
                return land(kind, op);
            case TAKEOVER_AFTER: {
                R result = land(kind, op);
                hooks.lapse();
                hooks.takeOver();
                return result;
            }
            case CRASH_BEFORE:
                cut = true;
                commitsWithNextWrite = null;
                throw new Crash();
            case CRASH_AFTER:
                land(kind, op);
                cut = true;
                throw new Crash();
            default:
                throw new AssertionError(fault);
        }
    }

    private <R> R land(Call kind, Supplier<R> op) {
        R result;
        try {
            result = op.get();
        } catch (RuntimeException e) {
            commitsWithNextWrite = null;
            throw e;
        }
        if (result instanceof Boolean) {
            landed(kind, (Boolean) result);
        } else {
            commitsWithNextWrite = null;
        }
        return result;
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
