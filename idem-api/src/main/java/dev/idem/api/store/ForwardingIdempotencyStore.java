package dev.idem.api.store;

import dev.idem.api.IdempotencyKey;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A store that passes every operation on to another: the one base for decorators (metrics,
 * tracing, fault injection, transaction views). A decorator either overrides
 * {@link #around}, which every store round trip passes through, or the single operations it
 * changes; everything else is forwarded as it is. A new SPI operation is added here once, and
 * every decorator forwards it.
 *
 * <pre>{@code
 * final class Counting extends ForwardingIdempotencyStore {
 *     final AtomicLong calls = new AtomicLong();
 *     Counting(IdempotencyStore store) { super(store); }
 *     protected <T> T around(Operation op, IdempotencyKey key, Supplier<T> call) {
 *         calls.incrementAndGet();
 *         return call.get();
 *     }
 * }
 * }</pre>
 *
 * <p>The wrapped store's {@linkplain #nonBlocking() non-blocking form} is forwarded too, each of
 * its calls through {@link #aroundAsync}, which gets the stage (a decorator that measures stops
 * its timer when the stage completes, not when it is returned). A subclass that overrides a
 * single blocking operation ({@code claim}, {@code find}, ...) changes what that operation
 * does, which the forwarded form would bypass: for such a subclass {@link #nonBlocking()} is
 * empty (so the engine's asynchronous calls use the blocking operations, through the override)
 * unless it overrides {@code nonBlocking()} itself.
 *
 * <p>{@link #capabilities()} (local configuration, no round trip) and {@link #close()} are
 * forwarded without passing through {@link #around}. Thread-safe when the wrapped store and
 * the subclass's hooks are.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

    /** The store operations that reach the backend, as decorators name them. */
    public enum Operation {
        /** {@link IdempotencyStore#claim}. */
        CLAIM,
        /** {@link IdempotencyStore#complete}. */
        COMPLETE,
        /** {@link IdempotencyStore#release}. */
        RELEASE,
        /** {@link IdempotencyStore#checkpoint}. */
        CHECKPOINT,
        /** {@link IdempotencyStore#extendLease}. */
        EXTEND_LEASE,
        /** {@link IdempotencyStore#find}. */
        FIND,
        /** {@link IdempotencyStore#purgeExpired}. */
        PURGE_EXPIRED;

        private final String label = name().toLowerCase(Locale.ROOT);

        /**
         * The operation's name in lower case ({@code claim}, {@code extend_lease}), as metric
         * tags and span names use it.
         *
         * @return the lower-case name
         */
        public String label() {
            return label;
        }
    }

    /** Whether a class overrides one of the blocking operations this base forwards. */
    private static final ClassValue<Boolean> CHANGES_AN_OPERATION = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            for (Class<?> c = type; c != ForwardingIdempotencyStore.class && c != null; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    if (!m.isSynthetic() && !m.isBridge() && FORWARDED.contains(m.getName())) {
                        return true;
                    }
                }
            }
            return false;
        }
    };
    private static final Set<String> FORWARDED = Set.of("claim", "complete", "release",
            "checkpoint", "extendLease", "find");

    private final IdempotencyStore delegate;

    /**
     * Forwards to {@code delegate}.
     *
     * @param delegate the store every operation goes to
     */
    protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "store");
    }

    /**
     * The wrapped store.
     *
     * @return the store every operation is forwarded to
     */
    public IdempotencyStore delegate() {
        return delegate;
    }

    /**
     * Runs one operation on the wrapped store: {@code call} makes the forwarded call. The
     * default runs it as it is; a decorator measures, traces or fails it here.
     *
     * @param <T> what the operation returns
     * @param operation which operation
     * @param key the operation's key, or null for {@link Operation#PURGE_EXPIRED}
     * @param call the forwarded call
     * @return what the call returned (or what the decorator answers instead)
     */
    protected <T> T around(Operation operation, @Nullable IdempotencyKey key, Supplier<T> call) {
        return call.get();
    }

    /**
     * Runs one operation of the wrapped store's non-blocking form: {@code call} makes the
     * forwarded call and returns its stage. The default returns that stage as it is; a decorator
     * measures, traces or fails it here, ending its measurement when the stage completes. A
     * failure {@code call} throws (invalid arguments) is thrown on.
     *
     * @param <T> what the stage yields
     * @param operation which operation
     * @param key the operation's key
     * @param call the forwarded call
     * @return the stage (or one the decorator answers instead)
     */
    protected <T> CompletionStage<T> aroundAsync(Operation operation, IdempotencyKey key,
            Supplier<? extends CompletionStage<T>> call) {
        return call.get();
    }

    /**
     * The wrapped store's non-blocking form, each call through {@link #aroundAsync}; empty when the
     * wrapped store offers none, or when this class overrides one of the blocking operations (see
     * the class documentation).
     *
     * @return the forwarded form, or empty
     */
    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        if (CHANGES_AN_OPERATION.get(getClass())) {
            return Optional.empty();
        }
        return delegate.nonBlocking().map(Forwarded::new);
    }

    /** The wrapped form, each operation through {@link #aroundAsync}. */
    private final class Forwarded implements NonBlockingStore {
        private final NonBlockingStore form;

        Forwarded(NonBlockingStore form) {
            this.form = form;
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return aroundAsync(Operation.CLAIM, key, () -> form.claim(key, fingerprint, fencingToken, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                Duration ttl) {
            return aroundAsync(Operation.COMPLETE, key, () -> form.complete(key, fencingToken, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return aroundAsync(Operation.RELEASE, key, () -> form.release(key, fencingToken));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return aroundAsync(Operation.CHECKPOINT, key, () -> form.checkpoint(key, fencingToken, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                Duration lease) {
            return aroundAsync(Operation.EXTEND_LEASE, key, () -> form.extendLease(key, fencingToken, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return aroundAsync(Operation.FIND, key, () -> form.find(key));
        }

        @Override
        public int maxCallsInFlight() {
            return form.maxCallsInFlight();
        }

        @Override
        public String toString() {
            return ForwardingIdempotencyStore.this + ".nonBlocking()";
        }
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return around(Operation.CLAIM, key, () -> delegate.claim(key, fingerprint, fencingToken, lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return around(Operation.COMPLETE, key, () -> delegate.complete(key, fencingToken, outcome, ttl));
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return around(Operation.RELEASE, key, () -> delegate.release(key, fencingToken));
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return around(Operation.CHECKPOINT, key, () -> delegate.checkpoint(key, fencingToken, journal));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return around(Operation.EXTEND_LEASE, key, () -> delegate.extendLease(key, fencingToken, lease));
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return around(Operation.FIND, key, () -> delegate.find(key));
    }

    @Override
    public int purgeExpired(int limit) {
        return around(Operation.PURGE_EXPIRED, null, () -> delegate.purgeExpired(limit));
    }

    /** The same store as the delegate: transactional work of the delegate runs through this view. */
    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return this == store || delegate.isBackedBy(store);
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + delegate + ")";
    }
}
