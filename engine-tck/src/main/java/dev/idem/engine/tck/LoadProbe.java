package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a load run sees of the store, from outside the engines: claims of the hot keys counted
 * per step and held at a gate while the test looks for lease renewals (so a renewal that waits
 * behind waiting duplicates' claims never comes), each key's lease as the store last granted it,
 * and its completions. Wraps every store instance of the run.
 *
 * <p>For a run over the store's non-blocking form, each engine's view also offers that form
 * through a client of its own that has only {@code width} connections (its
 * {@code maxCallsInFlight()}): a call waits for a free one, a held claim keeps its connection until
 * the gate opens, and every answer comes later the more calls are in the client, as from a store
 * that slows down as its queue grows. A renewal that the engine lets queue behind its waiters'
 * claims then never comes.
 */
final class LoadProbe implements AutoCloseable {
    /** How much later each call in a client makes an answer come, in real time. */
    private static final long SLOWER_PER_CALL_MILLIS = 2;
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
    /** Non-blocking claims held at the gate, each with the opening it arrived at. */
    private final List<Runnable> heldCalls = new ArrayList<>();
    private final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread t = new Thread(task, "tck-load-store-answers");
        t.setDaemon(true);
        return t;
    });

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
        return wrap(store, held, 0);
    }

    /**
     * {@code store} as one engine sees it, and if {@code width} is positive its non-blocking form
     * through a client of {@code width} connections.
     *
     * @param held counts this engine's claims held at the gate now
     */
    IdempotencyStore wrap(IdempotencyStore store, AtomicInteger held, int width) {
        return wrap(store, held, width, width);
    }

    /**
     * As {@link #wrap(IdempotencyStore, AtomicInteger, int)}, with a client that declares
     * {@code declared} calls in flight whatever its connections (a misconfigured client, for the
     * kit's own tests).
     */
    IdempotencyStore wrap(IdempotencyStore store, AtomicInteger held, int width, int declared) {
        NonBlockingStore form = width < 1 ? null : new SlowClient(store.nonBlocking().orElseThrow(() ->
                new IllegalStateException(store + " offers no non-blocking form")), held, width, declared);
        return new ForwardingIdempotencyStore(store) {
            @Override
            public Optional<NonBlockingStore> nonBlocking() {
                return Optional.ofNullable(form);
            }

            @Override
            public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease,
                    Duration ttl) {
                if (!hot.contains(key)) {
                    return delegate().claim(key, fingerprint, token, lease, ttl);
                }
                counted(key);
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
                claimed(key, result);
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
                    completed(key);
                }
                return done;
            }
        };
    }

    private void claimed(IdempotencyKey key, ClaimResult result) {
        seen(result.storeTime());
        if (result.claimed()) {
            granted(key, result.record().leaseExpiresAt());
            if (result.status() == ClaimResult.Status.TAKEN_OVER) {
                takenOver.add(key);
                synchronized (this) {
                    notifyAll();
                }
            }
        }
    }

    private void counted(IdempotencyKey key) {
        claims.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    private void completed(IdempotencyKey key) {
        completions.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        synchronized (this) {
            notifyAll();
        }
    }

    /** Sends a non-blocking claim now, or holds it (and its connection) until the gate opens. */
    private void sendOrHold(Runnable send, AtomicInteger held) {
        synchronized (this) {
            if (gateClosed) {
                held.incrementAndGet();
                heldCalls.add(() -> {
                    held.decrementAndGet();
                    send.run();
                });
                notifyAll();
                return;
            }
        }
        send.run();
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

    void openGate() {
        List<Runnable> release;
        synchronized (this) {
            gateClosed = false;
            openings++;
            notifyAll();
            release = new ArrayList<>(heldCalls);
            heldCalls.clear();
        }
        release.forEach(Runnable::run);
    }

    @Override
    public void close() {
        openGate();
        answers.shutdownNow();
    }

    /**
     * An engine's client of the store's non-blocking form: {@code width} connections, calls waiting
     * for one in order, and answers that come {@link #SLOWER_PER_CALL_MILLIS} later for each call in
     * the client when the store answered.
     */
    private final class SlowClient implements NonBlockingStore {
        private final NonBlockingStore form;
        private final AtomicInteger held;
        private final int width;
        private final int declared;
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
        private int connected;

        SlowClient(NonBlockingStore form, AtomicInteger held, int width, int declared) {
            this.form = form;
            this.held = held;
            this.width = width;
            this.declared = declared;
        }

        @Override
        public int maxCallsInFlight() {
            return declared;
        }

        private <R> CompletionStage<R> call(Supplier<CompletionStage<R>> body, IdempotencyKey heldClaim,
                Consumer<R> seenOk) {
            CompletableFuture<R> answer = new CompletableFuture<>();
            Runnable send = () -> {
                CompletionStage<R> stage;
                try {
                    stage = body.get();
                } catch (RuntimeException e) {
                    stage = CompletableFuture.failedFuture(e);
                }
                stage.whenComplete((r, e) -> {
                    long later;
                    synchronized (this) {
                        later = SLOWER_PER_CALL_MILLIS * (connected + waiting.size());
                    }
                    Runnable reply = () -> {
                        disconnect();
                        if (e == null) {
                            seenOk.accept(r);
                            answer.complete(r);
                        } else {
                            answer.completeExceptionally(e);
                        }
                    };
                    try {
                        answers.schedule(reply, later, TimeUnit.MILLISECONDS);
                    } catch (RuntimeException shutDown) {
                        reply.run();
                    }
                });
            };
            Runnable connect = heldClaim == null ? send : () -> sendOrHold(send, held);
            boolean now;
            synchronized (this) {
                now = connected < width;
                if (now) {
                    connected++;
                } else {
                    waiting.add(connect);
                }
            }
            if (now) {
                connect.run();
            }
            return answer;
        }

        private void disconnect() {
            Runnable next;
            synchronized (this) {
                next = waiting.poll();
                if (next == null) {
                    connected--;
                }
            }
            if (next != null) {
                next.run();
            }
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease,
                Duration ttl) {
            if (!hot.contains(key)) {
                return call(() -> form.claim(key, fingerprint, token, lease, ttl), null, r -> { });
            }
            counted(key);
            return call(() -> form.claim(key, fingerprint, token, lease, ttl), key, r -> claimed(key, r));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            return call(() -> form.complete(key, token, outcome, ttl), null, done -> {
                if (done) {
                    completed(key);
                }
            });
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long token) {
            return call(() -> form.release(key, token), null, r -> { });
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long token, byte[] journal) {
            return call(() -> form.checkpoint(key, token, journal), null, r -> { });
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
            return call(() -> form.extendLease(key, token, lease), null, until -> until.ifPresent(u -> granted(key, u)));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return call(() -> form.find(key), null, r -> { });
        }
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
