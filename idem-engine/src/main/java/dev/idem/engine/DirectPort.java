package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Sleeper;
import java.time.Duration;
import java.util.Optional;

/**
 * A blocking call's way to the store: each store call on the caller's thread, answered (or thrown)
 * before it returns, with no stage in between; the fenced writes that must land (a completion, a
 * step's checkpoint) are tried again on a briefly unavailable store ({@link Ending#retryPauseMillis}),
 * pausing on the engine's {@link Sleeper}. Its heartbeat renews through the engine's
 * {@link LanedPort} ({@link #renewals()}), on the engine's renewal threads, while the caller's
 * thread runs the work. An asynchronous call reaches the store through a {@link StorePort} instead.
 */
final class DirectPort {
    private final IdempotencyStore store;
    private final Sleeper sleeper;
    private final StorePort renewals;
    private final int attempts;

    /**
     * @param renewals the port a heartbeat renews through
     * @param attempts how often a fenced write is tried at most (the engine's {@code completeAttempts})
     */
    DirectPort(IdempotencyStore store, Sleeper sleeper, StorePort renewals, int attempts) {
        this.store = store;
        this.sleeper = sleeper;
        this.renewals = renewals;
        this.attempts = attempts;
    }

    ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return store.claim(key, fingerprint, token, lease, ttl);
    }

    /** Completes the held key with {@code outcome}, tried again while the store is briefly unavailable. */
    boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        for (int tried = 0;; tried++) {
            try {
                return store.complete(key, token, outcome, ttl);
            } catch (StoreUnavailableException e) {
                pauseBeforeRetry(tried, e);
            }
        }
    }

    /** Saves a step journal, tried again while the store is briefly unavailable. */
    boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
        for (int tried = 0;; tried++) {
            try {
                return store.checkpoint(key, token, journal);
            } catch (StoreUnavailableException e) {
                pauseBeforeRetry(tried, e);
            }
        }
    }

    boolean release(IdempotencyKey key, long token) {
        return store.release(key, token);
    }

    /** Whether the held key's lease was extended (or cut) to {@code lease}: false if the token is not current. */
    boolean extendLease(IdempotencyKey key, long token, Duration lease) {
        return store.extendLease(key, token, lease).isPresent();
    }

    Optional<StoredRecord> find(IdempotencyKey key) {
        return store.find(key);
    }

    /**
     * Returns after the pause before the next try of a write that failed with {@code failure};
     * throws {@code failure} if there is none, or if the pause is interrupted (the interrupt is kept).
     */
    private void pauseBeforeRetry(int tried, StoreUnavailableException failure) {
        long millis = Ending.retryPauseMillis(tried, failure, attempts);
        if (millis < 0) {
            throw failure;
        }
        try {
            sleeper.sleep(Duration.ofMillis(millis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure;
        }
    }

    /**
     * The port a heartbeat renews this call's lease through, from the engine's timer: never the
     * caller's thread, which runs the work meanwhile.
     */
    StorePort renewals() {
        return renewals;
    }
}
