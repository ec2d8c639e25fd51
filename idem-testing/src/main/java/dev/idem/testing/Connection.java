package dev.idem.testing;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One worker's connection to the store: every call goes to the store, except the {@code failAt}-th,
 * which meets the schedule's fault. A worker that dies has its connection cut first, so nothing it
 * tries on its way out (a release, a hand-back) reaches the store: a dead process cannot.
 * Single-threaded, like the worker that owns it; only blocking calls (the tester runs blocking work).
 */
final class Connection extends ForwardingIdempotencyStore {
    private final int failAt;
    private final Fault fault;
    private final Runnable takeOver;
    private int calls;
    private boolean cut;
    /** Each call's operation, in order: what the fault-free run names the store calls by. */
    final List<String> trace = new ArrayList<>();
    /** Whether the fault fired. */
    boolean fired;

    Connection(IdempotencyStore store, int failAt, Fault fault, Runnable takeOver) {
        super(store);
        this.failAt = failAt;
        this.fault = fault;
        this.takeOver = takeOver;
    }

    /** The worker dies now: nothing of it reaches the store any more. */
    Crash die(String where) {
        cut = true;
        return new Crash(where);
    }

    @Override
    public Optional<dev.idem.api.store.NonBlockingStore> nonBlocking() {
        // Blocking work only: every call passes through around(), where the faults are.
        return Optional.empty();
    }

    @Override
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        if (operation == Operation.PURGE_EXPIRED) {
            return call.get();
        }
        if (cut) {
            throw new StoreUnavailableException("connection cut: the worker crashed", null, false);
        }
        int n = ++calls;
        String label = "store call " + n + " (" + operation.label() + ")";
        trace.add(label);
        if (n != failAt) {
            return call.get();
        }
        fired = true;
        switch (fault) {
            case DIES_BEFORE_CALL:
                throw die("before " + label);
            case DIES_AFTER_CALL:
                call.get();
                throw die("after " + label + " landed");
            case CALL_FAILS:
                throw new StoreUnavailableException("injected by the crash tester: " + label + " failed", null, false);
            case CALL_FAILS_ONCE:
                throw new StoreUnavailableException("injected by the crash tester: " + label + " failed once", null,
                        true);
            case LEASE_LAPSES:
                takeOver.run();
                return call.get();
            default:
                return call.get();
        }
    }

    @Override
    public void close() {
        // Every worker shares the store under test; closing a connection closes nothing.
    }
}
