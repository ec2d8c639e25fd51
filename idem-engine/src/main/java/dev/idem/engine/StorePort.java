package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous call's way to the store, chosen once when the engine is built: {@link LanedPort}
 * (a blocking store, called on the engine's threads through its {@link StoreLane}) or
 * {@link NonBlockingPort} (the store's {@link dev.idem.api.store.NonBlockingStore}, through the same
 * kind of lane). A blocking call reaches the store through {@link DirectPort}, on its own thread;
 * its heartbeat renews through the laned port. Nothing else asks how a call travels: the call's
 * decisions are values ({@link Verdict}, {@link Ending}) that the driver carries out through its
 * port.
 *
 * <p>Two kinds of calls, as the lane orders them: a claim (a caller that does not hold the key: a
 * first claim, a waiting duplicate's poll) and a call of a held key (its lease renewals, its
 * outcome, its release or hand-back). A held key's calls never wait behind claims, in the lane or in
 * an executor's queue, and claims never take the whole lane, so however many duplicates wait, a
 * live holder's renewals and outcome reach the store.
 *
 * <p>Every answer is the store's value or its failure unwrapped (never a
 * {@link java.util.concurrent.CompletionException}); the laned and non-blocking ports answer on the
 * engine's threads, never on the caller's or on a store client's I/O thread.
 */
interface StorePort {

    /** Where a store call's answer goes: its value, or its (unwrapped) failure; exactly once. */
    @FunctionalInterface
    interface Answer<R> {
        void accept(R value, Throwable failure);
    }

    /** A claim of {@code key} by a caller that does not hold it. */
    void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            Answer<ClaimResult> then);

    /** Completes the held key with {@code outcome}; false if the token is not current. */
    CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl);

    /** Releases the held key; false if the token is not current. */
    CompletableFuture<Boolean> release(IdempotencyKey key, long token);

    /** Extends (or cuts) the held key's lease; empty if the token is not current. */
    CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease);

    /**
     * Completes after {@code d}, the pause between retries of a write; exceptionally if the wait
     * was cut short (the retries then stop).
     */
    CompletableFuture<Void> pause(Duration d);
}
