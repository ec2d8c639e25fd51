package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real in-memory store behind a switch: each operation can be made to fail as if the
 * backend were unreachable, and calls are counted. Not a mock: when the switch is off it
 * is the memory store.
 */
class FaultyStore extends ForwardingIdempotencyStore {
    volatile boolean claimDown;
    volatile boolean completeDown;
    volatile boolean releaseDown;
    volatile boolean findDown;
    /** When set, complete answers false (the token lost) without asking the store. */
    volatile boolean completeRefused;
    /** When set, release answers false (the token lost) without asking the store. */
    volatile boolean releaseRefused;
    /** When set, the next complete throws it (once). */
    volatile RuntimeException completeFailureOnce;
    /** When set, every checkpoint throws it, after the write landed if {@link #checkpointLands}. */
    volatile StoreUnavailableException checkpointFailure;
    volatile boolean checkpointLands;
    /** When set, the capabilities claim a server clock. */
    volatile boolean serverClock;
    volatile int maxOutcomeBytes = Integer.MAX_VALUE;
    final AtomicInteger claims = new AtomicInteger();
    final AtomicInteger completes = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger checkpoints = new AtomicInteger();
    final AtomicInteger extensions = new AtomicInteger();
    /** When set, extendLease answers empty (the token lost) without asking the store. */
    volatile boolean extendRefused;
    volatile boolean extendDown;
    /** When set, complete stores what it makes of the outcome instead (tampering, cutting short). */
    volatile java.util.function.UnaryOperator<byte[]> outcomeWritten;
    /** When set, checkpoint stores what it makes of the journal instead. */
    volatile java.util.function.UnaryOperator<byte[]> journalWritten;

    FaultyStore(IdempotencyStore delegate) {
        super(delegate);
    }

    private static StoreUnavailableException down() {
        return new StoreUnavailableException("store is down (injected)", new java.net.ConnectException("refused"));
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        claims.incrementAndGet();
        if (claimDown) {
            throw down();
        }
        return delegate().claim(key, fingerprint, token, lease, ttl);
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        completes.incrementAndGet();
        if (completeDown) {
            throw down();
        }
        if (completeRefused) {
            return false;
        }
        RuntimeException once = completeFailureOnce;
        if (once != null) {
            completeFailureOnce = null;
            throw once;
        }
        java.util.function.UnaryOperator<byte[]> written = outcomeWritten;
        return delegate().complete(key, token, written == null ? outcome : written.apply(outcome), ttl);
    }

    @Override
    public boolean release(IdempotencyKey key, long token) {
        releases.incrementAndGet();
        if (releaseDown) {
            throw down();
        }
        if (releaseRefused) {
            return false;
        }
        return delegate().release(key, token);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
        checkpoints.incrementAndGet();
        StoreUnavailableException failure = checkpointFailure;
        if (failure != null) {
            if (checkpointLands) {
                delegate().checkpoint(key, token, journal);
            }
            throw failure;
        }
        java.util.function.UnaryOperator<byte[]> written = journalWritten;
        return delegate().checkpoint(key, token, written == null ? journal : written.apply(journal));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
        extensions.incrementAndGet();
        if (extendDown) {
            throw down();
        }
        if (extendRefused) {
            return Optional.empty();
        }
        return delegate().extendLease(key, token, lease);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        if (findDown) {
            throw down();
        }
        return delegate().find(key);
    }

    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities c = delegate().capabilities();
        return new StoreCapabilities(c.nativeExpiry(), c.serverClock() || serverClock, Math.min(c.maxOutcomeBytes(), maxOutcomeBytes));
    }
}
