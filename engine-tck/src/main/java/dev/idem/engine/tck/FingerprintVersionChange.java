package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A key claimed under one fingerprint version and retried under another, over the store under
 * test: the holder runs on an engine with plain fingerprints (or keyed ones under a first secret),
 * its duplicates on one with keyed fingerprints turned on (or the secret rotated). Every way a
 * duplicate can read the record must see the same request: waiters that share one poll (its
 * answer held back until they all joined it; blocking and asynchronous, the latter through the
 * store's non-blocking form if it offers one), a fail-fast caller's own claim, a waiter's own
 * polls, and the near cache once the record is completed. Each gets the holder's outcome (a 409
 * while it runs), the work runs once, and another request is still a 422.
 */
final class FingerprintVersionChange {
    /** How long a caller may wait for what a correct engine does at once. */
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final KeyVersion F1 = secret("kit-f1", 0x31);
    private static final KeyVersion F2 = secret("kit-f2", 0x32);

    /** How the duplicates' engine differs from the holder's. */
    enum Change {
        TURNING_KEYED_FINGERPRINTS_ON(b -> b, b -> b.keyedFingerprints(KeyRing.of(F1))),
        ROTATING_THE_SECRET(b -> b.keyedFingerprints(KeyRing.of(F1)), b -> b.keyedFingerprints(KeyRing.of(F2, F1)));

        final UnaryOperator<IdempotencyEngineBuilder> before;
        final UnaryOperator<IdempotencyEngineBuilder> after;

        Change(UnaryOperator<IdempotencyEngineBuilder> before, UnaryOperator<IdempotencyEngineBuilder> after) {
            this.before = before;
            this.after = after;
        }
    }

    private final StoreFixture fixture;
    private final IdempotencyKey key = IdempotencyKey.of("fp-" + UUID.randomUUID(), "charge", "k1");
    private final Map<String, Object> request = Map.of("order", "o-1", "amount", 1000);
    private final AtomicInteger runs = new AtomicInteger();
    private final List<IdempotencyEngine> engines = new ArrayList<>();

    FingerprintVersionChange(StoreFixture fixture) {
        this.fixture = fixture;
    }

    private static KeyVersion secret(String id, int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return KeyVersion.of(id, secret);
    }

    private IdempotencyEngine engine(IdempotencyStore store, UnaryOperator<IdempotencyEngineBuilder> settings) {
        IdempotencyEngine engine = settings.apply(IdempotencyEngine.builder().store(store).lease(fixture.lease())
                .ttl(TTL).inProgress(InProgressPolicy.waitUpTo(BOUND))).build();
        engines.add(engine);
        return engine;
    }

    void run(Change change) throws Exception {
        try {
            runChecked(change);
        } finally {
            engines.forEach(IdempotencyEngine::close);
        }
    }

    private void runChecked(Change change) throws Exception {
        // The holder: asynchronous work that stays pending (its heartbeat keeps the lease) until released.
        CompletableFuture<String> held = new CompletableFuture<>();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Result<String>> first = engine(fixture.store(), change.before)
                .executeAsync(key, request, String.class, ctx -> {
                    started.countDown();
                    return held;
                });
        assertThat(started.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the holder's work started").isTrue();

        Gate gate = new Gate(fixture.otherStore(), key);
        IdempotencyEngine later = engine(gate, change.after);

        // Waiters that share one poll: the first one's claim is held until the others joined it.
        List<CompletableFuture<Result<String>>> waiters = new ArrayList<>();
        waiters.add(later.executeAsync(key, request, String.class, this::neverAsync));
        assertThat(gate.awaitClaims(1)).as("the first waiter's claim reached the store").isTrue();
        waiters.add(later.executeAsync(key, request, String.class, this::neverAsync));
        waiters.add(later.executeAsync(key, request, String.class, this::neverAsync));
        CompletableFuture<Result<String>> blocking = new CompletableFuture<>();
        Thread waiting = new Thread(() -> {
            try {
                blocking.complete(later.execute(key, request, String.class, ctx -> never()));
            } catch (RuntimeException | Error e) {
                blocking.completeExceptionally(e);
            }
        }, "kit-fingerprint-waiter");
        waiting.setDaemon(true);
        waiting.start();
        awaitParked(waiting);
        waiters.add(blocking);
        gate.open();

        // A caller that does not wait: its own claim, a 409 while the holder runs, never a 422.
        CallOptions failFast = CallOptions.builder().inProgress(InProgressPolicy.failFast()).build();
        assertThatThrownBy(() -> later.execute(key, request, String.class, failFast, ctx -> never()))
                .as("a fail-fast duplicate while the holder runs").isInstanceOf(RequestInProgressException.class);
        for (CompletableFuture<Result<String>> w : waiters) {
            assertThat(w).as("a waiter while the holder runs").isNotDone();
        }

        held.complete("first");
        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS).value()).isEqualTo("first");
        for (CompletableFuture<Result<String>> w : waiters) {
            Result<String> r = w.get(BOUND.toSeconds() * 2, TimeUnit.SECONDS);
            assertThat(r.replayed()).as("a waiter's answer is a replay").isTrue();
            assertThat(r.value()).isEqualTo("first");
        }

        // The near cache: filled by the first replay, then answering without a claim.
        AtomicInteger claims = new AtomicInteger();
        IdempotencyEngine cached = engine(new Counting(fixture.otherStore(), claims),
                b -> change.after.apply(b).nearCache(16));
        assertThat(cached.execute(key, request, String.class, ctx -> never()).value()).isEqualTo("first");
        int sent = claims.get();
        Result<String> fromCache = cached.execute(key, request, String.class, ctx -> never());
        assertThat(fromCache.replayed()).isTrue();
        assertThat(fromCache.value()).isEqualTo("first");
        assertThat(claims).as("a near-cache replay sends no claim").hasValue(sent);

        assertThat(runs).as("the duplicates' work").hasValue(0);
        Map<String, Object> other = Map.of("order", "o-2", "amount", 1000);
        assertThatThrownBy(() -> later.execute(key, other, String.class, ctx -> never()))
                .as("another request under the same key").isInstanceOf(KeyReusedException.class);
        assertThatThrownBy(() -> cached.execute(key, other, String.class, ctx -> never()))
                .as("another request under the same key, from the near cache")
                .isInstanceOf(KeyReusedException.class);
    }

    private String never() {
        return "ran " + runs.incrementAndGet();
    }

    private CompletionStage<String> neverAsync(dev.idem.engine.ExecutionContext ctx) {
        return CompletableFuture.completedFuture(never());
    }

    /** Waits (bounded) until {@code t} parks: a blocking waiter that joined the shared poll waits for its answer. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(t.getState()).as("the blocking waiter parked on the shared poll")
                .isIn(Thread.State.WAITING, Thread.State.TIMED_WAITING);
    }

    /** Holds the first claim of {@code key} (through either form) until opened, and counts them all. */
    private static final class Gate extends ForwardingIdempotencyStore {
        private final IdempotencyKey key;
        private final AtomicInteger claims = new AtomicInteger();
        private final CountDownLatch opened = new CountDownLatch(1);
        private final CompletableFuture<Void> openedStage = new CompletableFuture<>();
        private final NonBlockingStore form;

        Gate(IdempotencyStore delegate, IdempotencyKey key) {
            super(delegate);
            this.key = key;
            this.form = delegate.nonBlocking().map(GatedForm::new).orElse(null);
        }

        @Override
        public ClaimResult claim(IdempotencyKey k, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            if (k.equals(key)) {
                arrived();
                try {
                    if (!opened.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                        throw new AssertionError("the kit's gate stayed closed");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return delegate().claim(k, fingerprint, token, lease, ttl);
        }

        @Override
        public Optional<NonBlockingStore> nonBlocking() {
            return Optional.ofNullable(form);
        }

        private synchronized void arrived() {
            claims.incrementAndGet();
            notifyAll();
        }

        void open() {
            opened.countDown();
            openedStage.complete(null);
        }

        synchronized boolean awaitClaims(int n) throws InterruptedException {
            long deadline = System.nanoTime() + BOUND.toNanos();
            for (long left = BOUND.toNanos(); claims.get() < n && left > 0; left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return claims.get() >= n;
        }

        /** The store's non-blocking form, its claims of the key held at the same gate. */
        private final class GatedForm implements NonBlockingStore {
            private final NonBlockingStore form;

            GatedForm(NonBlockingStore form) {
                this.form = form;
            }

            @Override
            public CompletionStage<ClaimResult> claim(IdempotencyKey k, byte[] fingerprint, long token,
                    Duration lease, Duration ttl) {
                if (!k.equals(key)) {
                    return form.claim(k, fingerprint, token, lease, ttl);
                }
                arrived();
                return openedStage.thenCompose(v -> form.claim(k, fingerprint, token, lease, ttl));
            }

            @Override
            public CompletionStage<Boolean> complete(IdempotencyKey k, long token, byte[] outcome, Duration ttl) {
                return form.complete(k, token, outcome, ttl);
            }

            @Override
            public CompletionStage<Boolean> release(IdempotencyKey k, long token) {
                return form.release(k, token);
            }

            @Override
            public CompletionStage<Boolean> checkpoint(IdempotencyKey k, long token, byte[] journal) {
                return form.checkpoint(k, token, journal);
            }

            @Override
            public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey k, long token, Duration lease) {
                return form.extendLease(k, token, lease);
            }

            @Override
            public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey k) {
                return form.find(k);
            }

            @Override
            public int maxCallsInFlight() {
                return form.maxCallsInFlight();
            }
        }
    }

    /** Counts claims. */
    private static final class Counting extends ForwardingIdempotencyStore {
        private final AtomicInteger claims;

        Counting(IdempotencyStore delegate, AtomicInteger claims) {
            super(delegate);
            this.claims = claims;
        }

        @Override
        public ClaimResult claim(IdempotencyKey k, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            claims.incrementAndGet();
            return delegate().claim(k, fingerprint, token, lease, ttl);
        }

        @Override
        public Optional<NonBlockingStore> nonBlocking() {
            return Optional.empty();
        }
    }
}
