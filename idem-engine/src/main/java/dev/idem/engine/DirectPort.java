package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Sleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A blocking call's way to the store: each store call on the caller's thread, answered before it
 * returns (every future this port returns is complete, and a boolean one is one of two shared
 * futures, so the blocking call allocates none for its writes); a retry's pause sleeps on the
 * engine's {@link Sleeper}. Its heartbeat renews through the engine's {@link LanedPort}, on the
 * engine's renewal threads, while the caller's thread runs the work.
 */
final class DirectPort implements StorePort {
    // Shared: they are complete already, and never leave the engine (nothing may obtrude on them).
    static final CompletableFuture<Boolean> TRUE = CompletableFuture.completedFuture(true);
    static final CompletableFuture<Boolean> FALSE = CompletableFuture.completedFuture(false);

    private final IdempotencyStore store;
    private final Sleeper sleeper;
    private final StorePort renewals;

    DirectPort(IdempotencyStore store, Sleeper sleeper, StorePort renewals) {
        this.store = store;
        this.sleeper = sleeper;
        this.renewals = renewals;
    }

    /** A claim, answered on this thread. */
    ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return store.claim(key, fingerprint, token, lease, ttl);
    }

    @Override
    public void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            Answer<ClaimResult> then) {
        ClaimResult result;
        try {
            result = store.claim(key, fingerprint, token, lease, ttl);
        } catch (RuntimeException | Error e) {
            then.accept(null, e);
            return;
        }
        then.accept(result, null);
    }

    @Override
    public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        try {
            return done(store.complete(key, token, outcome, ttl));
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
        try {
            return done(store.release(key, token));
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
        try {
            return CompletableFuture.completedFuture(store.extendLease(key, token, lease));
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

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

    @Override
    public StorePort renewals() {
        return renewals;
    }

    /** A write's answer as a stage, without allocating one. */
    static CompletableFuture<Boolean> done(boolean answer) {
        return answer ? TRUE : FALSE;
    }
}
