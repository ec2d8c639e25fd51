package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A store made slower by {@code delay} per call, as a distant backend would be: a blocking call
 * sleeps that long first (its thread parked, as on a slow round trip); a call of the non-blocking
 * form starts that much later from one timer thread (no thread held meanwhile), and keeps the
 * real form's {@code maxCallsInFlight} (a call waiting out its delay holds a connection's place).
 */
public final class SlowStore implements IdempotencyStore {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "slow-store-timer");
        t.setDaemon(true);
        return t;
    });

    private final IdempotencyStore delegate;
    private final long delayNanos;
    private final NonBlockingStore form;

    /**
     * @param delegate the real store
     * @param delay what each call adds
     */
    public SlowStore(IdempotencyStore delegate, Duration delay) {
        this.delegate = delegate;
        this.delayNanos = delay.toNanos();
        this.form = delegate.nonBlocking().map(f -> (NonBlockingStore) new Form(f, f.maxCallsInFlight())).orElse(null);
    }

    private <R> R slow(Supplier<R> call) {
        try {
            TimeUnit.NANOSECONDS.sleep(delayNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return call.get();
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.ofNullable(form);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        return slow(() -> delegate.claim(key, fingerprint, token, lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        return slow(() -> delegate.complete(key, token, outcome, ttl));
    }

    @Override
    public boolean release(IdempotencyKey key, long token) {
        return slow(() -> delegate.release(key, token));
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
        return slow(() -> delegate.checkpoint(key, token, journal));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
        return slow(() -> delegate.extendLease(key, token, lease));
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return slow(() -> delegate.find(key));
    }

    @Override
    public int purgeExpired(int limit) {
        return delegate.purgeExpired(limit);
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    private final class Form implements NonBlockingStore {
        private final NonBlockingStore form;
        private final int maxCallsInFlight;

        Form(NonBlockingStore form, int maxCallsInFlight) {
            this.form = form;
            this.maxCallsInFlight = maxCallsInFlight;
        }

        private <R> CompletionStage<R> later(Supplier<CompletionStage<R>> call) {
            CompletableFuture<R> result = new CompletableFuture<>();
            TIMER.schedule(() -> call.get().whenComplete((r, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(r);
                }
            }), delayNanos, TimeUnit.NANOSECONDS);
            return result;
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease,
                Duration ttl) {
            return later(() -> form.claim(key, fingerprint, token, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            return later(() -> form.complete(key, token, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long token) {
            return later(() -> form.release(key, token));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long token, byte[] journal) {
            return later(() -> form.checkpoint(key, token, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
            return later(() -> form.extendLease(key, token, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return later(() -> form.find(key));
        }

        @Override
        public int maxCallsInFlight() {
            return maxCallsInFlight;
        }
    }
}
