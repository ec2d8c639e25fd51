package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A store's {@link NonBlockingStore} form seen as a blocking {@link IdempotencyStore}, so the
 * whole kit (contract, properties, races, histories) runs through the non-blocking operations:
 * each operation calls the form and waits (at most {@link #WAIT}) for its stage. It also checks
 * the form's own rules on every call: the call returns a stage (never null) and a backend failure
 * arrives through that stage, never thrown by the call itself; a break fails the test with an
 * {@link AssertionError}.
 *
 * <p>{@link #fixture(StoreFixture)} puts the view on a fixture: {@code store()} becomes the view of
 * the fixture's store, {@code otherStore()} stays the fixture's blocking second store, so the kit's
 * races and histories mix both forms on one backend.
 */
public final class NonBlockingView implements IdempotencyStore {
    /** The longest the view waits for one stage. */
    public static final Duration WAIT = Duration.ofSeconds(60);

    private final IdempotencyStore store;
    private final NonBlockingStore form;

    private NonBlockingView(IdempotencyStore store, NonBlockingStore form) {
        this.store = store;
        this.form = form;
    }

    /**
     * The view of {@code store}'s non-blocking form.
     *
     * @param store a store that offers a non-blocking form
     * @return the view
     * @throws AssertionError if the store offers none
     */
    public static NonBlockingView of(IdempotencyStore store) {
        NonBlockingStore form = store.nonBlocking().orElseThrow(() -> new AssertionError(store
                + " offers no NonBlockingStore (IdempotencyStore.nonBlocking() is empty)"));
        if (form.maxCallsInFlight() < 1) {
            throw new AssertionError("NonBlockingStore.maxCallsInFlight() must be positive but was "
                    + form.maxCallsInFlight());
        }
        return new NonBlockingView(store, form);
    }

    /**
     * {@code fixture} with {@code store()} seen through its non-blocking form.
     *
     * @param fixture a fixture whose store offers a non-blocking form
     * @return the fixture through the view
     */
    public static StoreFixture fixture(StoreFixture fixture) {
        NonBlockingView view = of(fixture.store());
        return new StoreFixture() {
            @Override
            public IdempotencyStore store() {
                return view;
            }

            @Override
            public IdempotencyStore otherStore() {
                // The blocking form: the kit's races and histories then mix both forms on one backend.
                return fixture.otherStore();
            }

            @Override
            public void advance(Duration d) throws InterruptedException {
                fixture.advance(d);
            }

            @Override
            public boolean clockIsSimulated() {
                return fixture.clockIsSimulated();
            }

            @Override
            public Duration lease() {
                return fixture.lease();
            }

            @Override
            public Duration ttl() {
                return fixture.ttl();
            }

            @Override
            public Duration slack() {
                return fixture.slack();
            }

            @Override
            public int largeOutcomeBytes() {
                return fixture.largeOutcomeBytes();
            }

            @Override
            public AnswersHeld holdAnswers() throws Exception {
                return fixture.holdAnswers();
            }

            @Override
            public void close() throws Exception {
                fixture.close();
            }
        };
    }

    /** The form this views. */
    NonBlockingStore form() {
        return form;
    }

    /**
     * The store whose form this views.
     *
     * @return the store
     */
    public IdempotencyStore store() {
        return store;
    }

    private <R> R await(String operation, Supplier<? extends CompletionStage<R>> call) {
        CompletionStage<R> stage;
        try {
            stage = call.get();
        } catch (StoreUnavailableException e) {
            throw new AssertionError("NonBlockingStore." + operation + " threw " + e + "; a backend failure must"
                    + " complete the stage exceptionally", e);
        }
        if (stage == null) {
            throw new AssertionError("NonBlockingStore." + operation + " returned null instead of a stage");
        }
        try {
            return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while waiting for " + operation, e, true);
        } catch (TimeoutException e) {
            throw new AssertionError("NonBlockingStore." + operation + " did not complete its stage within " + WAIT, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new AssertionError("NonBlockingStore." + operation + " failed with a checked exception", cause);
        }
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return await("claim", () -> form.claim(key, fingerprint, fencingToken, lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return await("complete", () -> form.complete(key, fencingToken, outcome, ttl));
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return await("release", () -> form.release(key, fencingToken));
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return await("checkpoint", () -> form.checkpoint(key, fencingToken, journal));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return await("extendLease", () -> form.extendLease(key, fencingToken, lease));
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return await("find", () -> form.find(key));
    }

    @Override
    public int purgeExpired(int limit) {
        return store.purgeExpired(limit);
    }

    @Override
    public StoreCapabilities capabilities() {
        return store.capabilities();
    }

    @Override
    public String toString() {
        return "NonBlockingView[" + store + "]";
    }
}
