package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a load run sees of the store, from outside the engines: claims of the hot keys counted
 * per step and held at a gate while the test looks for lease renewals (so a renewal that waits
 * behind waiting duplicates' claims never comes), each key's lease as the store last granted it,
 * and its completions. Wraps every store instance of the run.
 */
final class LoadProbe {
    private final Set<IdempotencyKey> hot;
    private final SteppedTime time;
    private final Duration bound;
    private final Map<IdempotencyKey, AtomicInteger> claims = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, Instant> leases = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, AtomicInteger> completions = new ConcurrentHashMap<>();
    private final Set<IdempotencyKey> takenOver = ConcurrentHashMap.newKeySet();
    private boolean gateClosed;
    /** How often the gate was opened: a claim held once is let go at the next opening, even if it closes again. */
    private long openings;
    private Instant storeBase;
    private long tickerBase;

    LoadProbe(Set<IdempotencyKey> hot, SteppedTime time, Duration bound) {
        this.hot = hot;
        this.time = time;
        this.bound = bound;
    }

    /**
     * {@code store} as one engine sees it.
     *
     * @param held counts this engine's claims held at the gate now
     */
    IdempotencyStore wrap(IdempotencyStore store, AtomicInteger held) {
        return new ForwardingIdempotencyStore(store) {
            @Override
            public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease,
                    Duration ttl) {
                if (!hot.contains(key)) {
                    return delegate().claim(key, fingerprint, token, lease, ttl);
                }
                claims.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                held.incrementAndGet();
                synchronized (LoadProbe.this) {
                    LoadProbe.this.notifyAll();
                }
                try {
                    passGate();
                } finally {
                    held.decrementAndGet();
                }
                ClaimResult result = delegate().claim(key, fingerprint, token, lease, ttl);
                seen(result.storeTime());
                if (result.claimed()) {
                    granted(key, result.record().leaseExpiresAt());
                    if (result.status() == ClaimResult.Status.TAKEN_OVER) {
                        takenOver.add(key);
                        synchronized (LoadProbe.this) {
                            LoadProbe.this.notifyAll();
                        }
                    }
                }
                return result;
            }

            @Override
            public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
                Optional<Instant> until = delegate().extendLease(key, token, lease);
                until.ifPresent(u -> granted(key, u));
                return until;
            }

            @Override
            public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                boolean done = delegate().complete(key, token, outcome, ttl);
                if (done) {
                    completions.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                    synchronized (LoadProbe.this) {
                        LoadProbe.this.notifyAll();
                    }
                }
                return done;
            }
        };
    }

    private synchronized void seen(Instant storeTime) {
        if (storeBase == null) {
            storeBase = storeTime;
            tickerBase = time.now();
        }
    }

    private synchronized void granted(IdempotencyKey key, Instant until) {
        leases.merge(key, until, (a, b) -> a.isAfter(b) ? a : b);
        notifyAll();
    }

    /** The store's clock now, as the run has stepped it since the first claim. */
    synchronized Instant storeNow() {
        return storeBase.plusNanos(time.now() - tickerBase);
    }

    synchronized Instant leaseOf(IdempotencyKey key) {
        return leases.get(key);
    }

    /** Holds claims of the hot keys that arrive from now on until {@link #openGate()}. */
    synchronized void closeGate() {
        gateClosed = true;
    }

    synchronized void openGate() {
        gateClosed = false;
        openings++;
        notifyAll();
    }

    private synchronized void passGate() {
        long arrivedAt = openings;
        // Far longer than any other wait of the run: the run opens the gate itself when a check fails,
        // and a claim let through early could let a queued renewal through and hide the failure.
        long deadline = System.nanoTime() + bound.multipliedBy(6).toNanos();
        while (gateClosed && openings == arrivedAt) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Waits (bounded) until the store has granted {@code key} a lease past {@code until}; false if
     * it did not, or if a claim took the key over meanwhile. Runs {@code timer} every few milliseconds meanwhile, as a timer thread would run
     * a task that an engine's thread scheduled late (after the step it falls due in).
     */
    boolean awaitLeasePast(IdempotencyKey key, Instant until, Runnable timer) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        for (;;) {
            timer.run();
            synchronized (this) {
                Instant lease = leases.get(key);
                if (lease != null && lease.isAfter(until) || takenOver.contains(key)) {
                    return lease != null && lease.isAfter(until);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
            }
        }
    }

    /**
     * Waits (bounded) until {@code held} counts at least {@code n} claims at the gate. Not an
     * assertion: a correct engine may send fewer; the wait only makes sure that what it sends is
     * held before renewals fall due.
     */
    synchronized void awaitHeld(AtomicInteger held, int n, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        for (long left = wait.toNanos(); held.get() < n && left > 0; left = deadline - System.nanoTime()) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Waits (bounded) until every hot key's outcome is stored; false if one is not. */
    synchronized boolean awaitCompleted() throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (completions.size() < hot.size()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** The hot keys a claim took over (a lease lapsed). */
    Set<IdempotencyKey> takenOver() {
        return Set.copyOf(takenOver);
    }

    /** The claims of each hot key since the last call. */
    Map<IdempotencyKey, Integer> takeClaims() {
        Map<IdempotencyKey, Integer> taken = new HashMap<>();
        claims.forEach((key, n) -> taken.put(key, n.getAndSet(0)));
        return taken;
    }
}
