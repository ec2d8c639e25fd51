package dev.idem.engine;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.time.Scheduler;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.engine.internal.StoreDiscovery;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Gives a state-changing operation exactly-once effect: {@code execute(key, request, work)}
 * runs the work at most once per lease for a key and replays its outcome to every
 * duplicate until the record expires.
 *
 * {@code call(key, request, type, work)} returns the value, {@code execute(...)} the
 * {@link Result} (value, and whether it was replayed); {@code callAtomically}/{@code executeAtomically}
 * run work that completes the record in its own transaction (store-jdbc's
 * {@code store.transactional(...)}), and {@code callAsync}/{@code executeAsync} work that returns a
 * {@code CompletionStage}. The project README's quick start, compiled and run by the build, shows
 * them whole (a store, the engine, a {@link FailureClassifier}, the transactional mode).
 *
 * <h2>Algorithm</h2>
 * Validate the key, fingerprint the request (SHA-256 over the operation and the RFC 8785
 * canonical request, see {@link CanonicalJson}), then claim the key in the store in one
 * atomic step:
 * <ul>
 *   <li>claimed (new, released, expired, or a lapsed lease taken over): run the work with a
 *       fresh fencing token, then complete the record with the encoded result, fenced by
 *       that token; if the token is stale the result is discarded and
 *       {@link dev.idem.api.LeaseLostException} is thrown;</li>
 *   <li>existing with another fingerprint: {@link dev.idem.api.KeyReusedException} (422),
 *       checked before the in-progress state;</li>
 *   <li>existing and COMPLETED: replay the stored result without running anything, or
 *       throw {@link dev.idem.api.ReplayedFailureException} for a stored final failure;</li>
 *   <li>existing and IN_PROGRESS under a live lease: by {@link InProgressPolicy}, fail with
 *       {@link dev.idem.api.RequestInProgressException} (409) or wait, bounded, re-claiming
 *       with backoff.</li>
 * </ul>
 * An exception from the work is transient by default: the key is released and the
 * exception rethrown (checked ones wrapped in {@link WorkFailedException}), so a retry runs
 * again. A {@link FailureClassifier} may mark it final: the code and message are stored, the
 * first caller gets {@link dev.idem.api.FinalFailureException} (with the original as cause)
 * and every retry its subtype {@link dev.idem.api.ReplayedFailureException}, with the same
 * code, message and status. {@link Error}s always release and rethrow. Once the work has
 * returned, the key is never freed: an outcome that cannot be stored (not writable as JSON,
 * over {@link #maxOutcomeBytes()}, refused by the store) is replaced by a stored marker and
 * every caller gets {@link OutcomeNotStoredException}; so is a final failure that cannot be
 * stored. Multi-step work ({@link ExecutionContext#step}) ends by what the engine recorded of
 * its steps, whatever the work made of their exceptions (see {@link ExecutionContext}).
 *
 * <h2>Time</h2>
 * Every duration the engine measures (a lease running out between steps, a bounded wait, a
 * near-cache entry's life, event durations) is measured on the monotonic {@link Ticker},
 * never on a wall clock, so a clock stepped back or forward changes none of them; instants
 * from the store are only compared with other instants from the store.
 *
 * <h2>Deadlines</h2>
 * A caller that waits only so long passes its {@link dev.idem.api.time.Deadline} in
 * {@link CallOptions#deadline()} (over HTTP, idem-http reads it from {@code X-Request-Timeout}).
 * The work never starts once it has passed: before the claim the call is refused with
 * {@link dev.idem.api.DeadlineExceededException} (504) and nothing is stored; if it passes while
 * the claim is made, the claim is given back first. A waiting duplicate waits no longer than it
 * ({@link dev.idem.api.RequestInProgressException}, 409). The work sees it
 * ({@link ExecutionContext#deadline()}) but is not interrupted by it, and the outcome of work that
 * ran is stored however late. It may shorten the claim's lease, never below
 * {@link Builder#minBudgetLease}, and a heartbeat then keeps a live worker's key.
 *
 * <h2>Result types</h2>
 * Results must survive a round trip through the engine's ObjectMapper. Replays decode
 * leniently: properties the result type no longer has are ignored, and properties it gained
 * decode as their defaults, so a type may gain or lose fields between deploys; a renamed or
 * retyped field is a new contract (use a new operation name, or wait a TTL).
 *
 * <h2>Requests</h2>
 * The {@code request} is what the fingerprint is taken of: a {@code String} is JSON text
 * (so a plain token must be given as {@code byte[]} or wrapped in JSON; other text is an
 * {@link dev.idem.api.InvalidRequestException} that says so), a {@code byte[]} is hashed as
 * it is, and anything else (POJO, Map, JsonNode) is written with the engine's ObjectMapper
 * and canonicalized. A {@code null} request (or key) is a programming error:
 * {@link NullPointerException} before anything is stored; a request with no content is
 * {@code "null"} or {@code NullNode.getInstance()}, which fingerprint as JSON null.
 *
 * <h2>Exceptions</h2>
 * Every failure idem raises on purpose is an {@link dev.idem.api.IdempotencyException}
 * carrying its HTTP status. Outside that root, public methods throw only: the work's own
 * unchecked exceptions and {@link Error}s, rethrown as they are for transient failures;
 * {@link NullPointerException} for a null argument; and {@link IllegalArgumentException} /
 * {@link IllegalStateException} from builders and option validation (an out-of-range
 * duration, a lease not shorter than the TTL, a per-call wait longer than the TTL, a setter
 * called twice, zero or several discovered stores): programming errors, raised before
 * anything is stored. A too large outcome is never an {@code IllegalArgumentException} to
 * the caller (it becomes {@link OutcomeNotStoredException}), and durations are bounded by
 * {@link #MAX_DURATION}, so no {@code ArithmeticException} or {@code DateTimeException}
 * escapes from the engine's time arithmetic.
 *
 * <p>Thread-safe; holds no global state, so several engines may share a JVM (and a store).
 * {@link #close()} closes the store only if the engine discovered it itself.
 */
public final class IdempotencyEngine implements AutoCloseable {
    final IdempotencyStore store;
    /** The store's non-blocking form, used by asynchronous calls; null if it offers none. */
    final NonBlockingStore nonBlocking;
    private final boolean ownsStore;
    private final AtomicBoolean closed = new AtomicBoolean();
    final OutcomeCodec codec;
    final Fingerprinter fingerprinter;
    final Ticker ticker;
    final RandomGenerator random;
    // Fencing tokens never come from the injectable jitter randomness: a fixed or shared
    // generator would give a taker-over the stale worker's token. A secret random base plus a
    // counter is unique per claim within this engine and unpredictable across engines.
    private final long tokenBase;
    private final AtomicLong tokenCounter = new AtomicLong();
    final Sleeper sleeper;
    final Duration lease;
    final Duration ttl;
    final InProgressPolicy inProgress;
    final Duration retryAfterHint;
    final FailureClassifier classifier;
    final IdempotencyListener listener;
    final NearCache nearCache;
    final int completeAttempts;
    final int maxOutcomeBytes;
    final AsyncRuntime async;
    final SharedPolls polls;
    final Duration minBudgetLease;
    final Sealer sealer;
    final OutcomeFilter outcomeFilter;

    /**
     * The default {@link #maxOutcomeBytes()}: 393,216 bytes (384 KiB), what the smallest store
     * holds in one record (DynamoDB's 400 KB item, less room for the record's other attributes),
     * so that an application behaves alike on every store. Raise it per engine with
     * {@link Builder#maxOutcomeBytes(int)}, up to what the store holds.
     */
    public static final int DEFAULT_MAX_OUTCOME_BYTES = 393_216;

    private IdempotencyEngine(Builder b) {
        this.ownsStore = b.store == null;
        this.store = b.store != null ? b.store
                : StoreDiscovery.discover(b.classLoader != null ? b.classLoader
                        : Thread.currentThread().getContextClassLoader(), b.clock, b.properties);
        this.codec = b.json != null ? new OutcomeCodec(b.json)
                : new OutcomeCodec(b.mapper != null ? b.mapper : new ObjectMapper().findAndRegisterModules());
        this.fingerprinter = new Fingerprinter(codec.json(), b.maxRequestBytes, PointerSet.of(b.excluded),
                b.fingerprintSecrets);
        this.sealer = b.outcomeKeys == null && !b.refuseUnencrypted ? Sealer.NONE
                : new Sealer(b.outcomeKeys, b.refuseUnencrypted);
        this.outcomeFilter = b.outcomeFilter;
        this.ticker = b.ticker;
        this.random = b.random;
        this.tokenBase = new SecureRandom().nextLong();
        this.sleeper = b.sleeper;
        this.lease = b.lease;
        this.ttl = b.ttl;
        this.inProgress = b.inProgress;
        this.retryAfterHint = b.retryAfterHint;
        this.classifier = b.classifier;
        this.listener = b.listener;
        this.nearCache = b.nearCacheSize > 0 ? new NearCache(b.nearCacheSize, b.ticker) : null;
        this.completeAttempts = b.completeAttempts;
        // Read once, like the capabilities: a store offers its non-blocking form for its whole life.
        this.nonBlocking = store.nonBlocking().orElse(null);
        this.async = new AsyncRuntime(b.asyncExecutor, b.renewalExecutor, b.scheduler, b.maxPendingWork,
                b.maxAsyncCalls, nonBlocking == null ? 0 : positiveWidth(nonBlocking.maxCallsInFlight()));
        this.polls = new SharedPolls(b.ticker);
        this.minBudgetLease = b.minBudgetLease;
        // Read once: capabilities are fixed for a store's life, and some stores build them per call.
        StoreCapabilities capabilities = store.capabilities();
        int storeHolds = capabilities.maxOutcomeBytes();
        if (b.maxOutcomeBytes > storeHolds) {
            if (ownsStore) {
                store.close();
            }
            throw new IllegalArgumentException("maxOutcomeBytes (" + b.maxOutcomeBytes + ") exceeds what the store "
                    + store.getClass().getSimpleName() + " holds (" + storeHolds + "); raise the store's own limit"
                    + " first, where it has one");
        }
        this.maxOutcomeBytes = b.maxOutcomeBytes > 0 ? b.maxOutcomeBytes
                : Math.min(DEFAULT_MAX_OUTCOME_BYTES, storeHolds);
    }

    /**
     * A builder with the defaults: 30 s lease, 24 h TTL, fail-fast duplicates, all failures transient.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The store this engine uses (the discovered one if none was given).
     *
     * @return the store
     */
    public IdempotencyStore store() {
        return store;
    }

    /**
     * The monotonic ticker this engine measures every duration on (see {@link Builder#ticker}):
     * make a call's deadline on it ({@code Deadline.after(budget, engine.ticker())}) so that a
     * test's simulated time moves both alike.
     *
     * @return the ticker
     */
    public Ticker ticker() {
        return ticker;
    }

    /**
     * The largest outcome (and step journal) this engine stores, in bytes: the one set with
     * {@link Builder#maxOutcomeBytes(int)}, else {@link #DEFAULT_MAX_OUTCOME_BYTES} (or the
     * store's own limit, if lower). Over it, the work's outcome is replaced by a stored marker
     * ({@link OutcomeNotStoredException}) and a step's result fails the key finally
     * ({@link StepJournalTooLargeException}), on every store alike.
     *
     * @return the limit in bytes
     */
    public int maxOutcomeBytes() {
        return maxOutcomeBytes;
    }

    /**
     * The JSON codec this engine writes results with (the builder's, else Jackson 2 over its
     * ObjectMapper): for adapters that must know how large a result will be before they hand it
     * over, as idem-reactor does while it collects a {@code Flux}.
     *
     * @return the codec
     */
    public JsonCodec jsonCodec() {
        return codec.json();
    }

    /**
     * Closes the store if this engine discovered it through a
     * {@link dev.idem.api.store.StoreProvider} (it created it, so it owns it); a store passed
     * to {@link Builder#store(IdempotencyStore)} is the caller's and is left open. Idempotent.
     * The engine must not be used afterwards.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // Only what the engine created: the builder's executor and scheduler are the caller's.
            async.close();
            if (ownsStore) {
                store.close();
            }
        }
    }

    /**
     * Runs {@code work} once for {@code key} and {@code request}. The value is given as plain
     * JSON values (Map, List, String, Number, Boolean or null) both the first time (decoded
     * from what was stored) and on replay, so callers see one shape. Use a typed variant for
     * POJOs.
     *
     * @param key the idempotency key
     * @param request what the fingerprint is taken of (see the class comment)
     * @param work the operation
     * @return the value, and whether it was replayed
     * @throws dev.idem.api.IdempotencyException a typed failure (see the class comment and
     *     the README's guarantees table); the work's own unchecked exceptions on a transient failure
     */
    public Result<Object> execute(IdempotencyKey key, Object request, Work<?> work) {
        return execute(key, request, Object.class, CallOptions.defaults(), work);
    }

    /**
     * Runs {@code work} once; a replay decodes the stored result as {@code type}, ignoring
     * properties the type no longer has.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> execute(IdempotencyKey key, Object request, Class<T> type, Work<? extends T> work) {
        return execute(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * Runs {@code work} once; a replay decodes the stored result as the generic {@code type}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> execute(IdempotencyKey key, Object request, TypeReference<T> type, Work<? extends T> work) {
        return execute(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * Like {@link #execute(IdempotencyKey, Object, Class, Work)} with per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the value, and whether it was replayed
     * @throws IllegalArgumentException if the overrides contradict the engine's settings (a
     *     lease not shorter than the TTL, a wait longer than the TTL)
     */
    public <T> Result<T> execute(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            Work<? extends T> work) {
        Objects.requireNonNull(type, "type");
        return run(key, request, codec.mapper().constructType(type), options, Execution.plain(work));
    }

    /**
     * Like {@link #execute(IdempotencyKey, Object, TypeReference, Work)} with per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> execute(IdempotencyKey key, Object request, TypeReference<T> type, CallOptions options,
            Work<? extends T> work) {
        Objects.requireNonNull(type, "type");
        return run(key, request, codec.mapper().constructType(type), options, Execution.plain(work));
    }

    /**
     * Runs {@code work} once and returns its value, for callers that do not need to know
     * whether it was replayed: {@code execute(key, request, type, work).value()}. A duplicate
     * gets the stored value without running the work; failures are thrown as by
     * {@link #execute(IdempotencyKey, Object, Class, Work)}. Where a replay must be told apart
     * (an HTTP response's {@code Idempotency-Status}) or {@link Result#stored()} matters, use
     * {@code execute}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T call(IdempotencyKey key, Object request, Class<T> type, Work<? extends T> work) {
        return execute(key, request, type, work).value();
    }

    /**
     * Like {@link #call(IdempotencyKey, Object, Class, Work)} for a generic result type.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T call(IdempotencyKey key, Object request, TypeReference<T> type, Work<? extends T> work) {
        return execute(key, request, type, work).value();
    }

    /**
     * Like {@link #executeAtomically(IdempotencyKey, Object, Class, CallOptions, AtomicWork)}
     * with the engine's defaults: with idem-store-jdbc,
     * {@code engine.executeAtomically(key, request, Charge.class, store.transactional(handle -> ...))}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, which completes the record itself
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> executeAtomically(IdempotencyKey key, Object request, Class<T> type,
            AtomicWork<? extends T> work) {
        return executeAtomically(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * The value of {@link #executeAtomically(IdempotencyKey, Object, Class, AtomicWork)}, for
     * callers that do not need to know whether it was replayed.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, which completes the record itself
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T callAtomically(IdempotencyKey key, Object request, Class<T> type,
            AtomicWork<? extends T> work) {
        return executeAtomically(key, request, type, CallOptions.defaults(), work).value();
    }

    /**
     * Runs work that completes the record itself, in the same transaction as its effect
     * (see {@link AtomicWork}); used by stores that can join the caller's transaction. After
     * the work returns, the engine reads the record once: work that returned without
     * completing it is a programming error, answered (now and on every retry) with
     * {@link OutcomeNotStoredException}, never with {@code stored() == true}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, which completes the record itself
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> executeAtomically(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            AtomicWork<? extends T> work) {
        Objects.requireNonNull(type, "type");
        checkSameStore(work);
        return run(key, request, codec.mapper().constructType(type), options, Execution.atomic(work));
    }

    /**
     * Generic-type variant of {@link #executeAtomically(IdempotencyKey, Object, Class, CallOptions, AtomicWork)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, which completes the record itself
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> executeAtomically(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, AtomicWork<? extends T> work) {
        Objects.requireNonNull(type, "type");
        checkSameStore(work);
        return run(key, request, codec.mapper().constructType(type), options, Execution.atomic(work));
    }

    /**
     * The asynchronous {@link #execute(IdempotencyKey, Object, Work)}: plain JSON values, the first
     * time as on replay.
     *
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param work the operation, returning a stage
     * @return the value and whether it was replayed, or the failure the blocking call would throw
     */
    public CompletableFuture<Result<Object>> executeAsync(IdempotencyKey key, Object request, AsyncWork<?> work) {
        return executeAsync(key, request, Object.class, CallOptions.defaults(), work);
    }

    /**
     * Runs asynchronous {@code work} once for {@code key}, with exactly the guarantees and answers
     * of {@link #execute(IdempotencyKey, Object, Class, Work)}: the work's stage completing with a
     * value is a returned value, completing exceptionally is a thrown exception (classified by the
     * {@link FailureClassifier}). The answer completes with the same exception types as the
     * blocking call throws, unwrapped. Store calls run on the engine's async executor
     * ({@link Builder#asyncExecutor}), never on the calling thread; a duplicate that waits for an
     * in-progress key claims again from the {@link Builder#scheduler scheduler} without parking a
     * thread; the lease of pending work is extended in the background, at most
     * {@link Builder#maxPendingWork} long. Cancelling the answer detaches the caller: once the key
     * is claimed the work goes on, and the record ends by its own outcome.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, returning a stage
     * @return the value and whether it was replayed, or the failure
     * @throws NullPointerException if an argument is null (a programming error, thrown at once)
     */
    public <T> CompletableFuture<Result<T>> executeAsync(IdempotencyKey key, Object request, Class<T> type,
            AsyncWork<? extends T> work) {
        return executeAsync(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * Like {@link #executeAsync(IdempotencyKey, Object, Class, AsyncWork)} for a generic result type.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, returning a stage
     * @return the value and whether it was replayed, or the failure
     */
    public <T> CompletableFuture<Result<T>> executeAsync(IdempotencyKey key, Object request, TypeReference<T> type,
            AsyncWork<? extends T> work) {
        return executeAsync(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * Like {@link #executeAsync(IdempotencyKey, Object, Class, AsyncWork)} with per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, returning a stage
     * @return the value and whether it was replayed, or the failure
     * @throws IllegalArgumentException if the overrides contradict the engine's settings (thrown at once)
     */
    public <T> CompletableFuture<Result<T>> executeAsync(IdempotencyKey key, Object request, Class<T> type,
            CallOptions options, AsyncWork<? extends T> work) {
        Objects.requireNonNull(type, "type");
        return runAsync(key, request, codec.mapper().constructType(type), options, work);
    }

    /**
     * Like {@link #executeAsync(IdempotencyKey, Object, TypeReference, AsyncWork)} with per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, returning a stage
     * @return the value and whether it was replayed, or the failure
     */
    public <T> CompletableFuture<Result<T>> executeAsync(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, AsyncWork<? extends T> work) {
        Objects.requireNonNull(type, "type");
        return runAsync(key, request, codec.mapper().constructType(type), options, work);
    }

    /**
     * The value of {@link #executeAsync(IdempotencyKey, Object, Class, AsyncWork)}, as
     * {@link #call(IdempotencyKey, Object, Class, Work)} is of {@code execute}; failures complete
     * it with the same (unwrapped) exceptions.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, returning a stage
     * @return the work's value, now or replayed (null if the work's stage completed with null)
     */
    public <T> CompletableFuture<T> callAsync(IdempotencyKey key, Object request, Class<T> type,
            AsyncWork<? extends T> work) {
        return valueOf(executeAsync(key, request, type, work));
    }

    /**
     * Like {@link #callAsync(IdempotencyKey, Object, Class, AsyncWork)} for a generic result type.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, returning a stage
     * @return the work's value, now or replayed
     */
    public <T> CompletableFuture<T> callAsync(IdempotencyKey key, Object request, TypeReference<T> type,
            AsyncWork<? extends T> work) {
        return valueOf(executeAsync(key, request, type, work));
    }

    private static <T> CompletableFuture<T> valueOf(CompletableFuture<Result<T>> result) {
        // Not thenApply: a dependent stage would wrap the failure in a CompletionException.
        CompletableFuture<T> value = new CompletableFuture<>();
        result.whenComplete((r, e) -> {
            if (e != null) {
                value.completeExceptionally(e);
            } else {
                value.complete(r.value());
            }
        });
        return value;
    }

    private <T> CompletableFuture<Result<T>> runAsync(IdempotencyKey key, Object request, JavaType type,
            CallOptions options, AsyncWork<? extends T> work) {
        checkArguments(key, request, options);
        Objects.requireNonNull(work, "work");
        Execution<T> execution = new Execution<T>(this, key, type, options, Execution.plain(ctx -> {
            throw new IllegalStateException("an asynchronous call has no blocking work");
        }), false);
        AsyncExecution<T> call = new AsyncExecution<>(this, key, execution, work);
        if (!async.acquire()) {
            return CompletableFuture.failedFuture(new AsyncCallsFullException(async.maxCalls));
        }
        return call.start(request);
    }

    private static void checkArguments(IdempotencyKey key, Object request, CallOptions options) {
        Objects.requireNonNull(key, "key must not be null: build one with IdempotencyKey.of(scope, operation, key)");
        Objects.requireNonNull(request, "request must not be null: it is what the fingerprint is taken of; pass"
                + " the request object, JSON text or bytes (for a request with no content, \"null\" or"
                + " NullNode.getInstance())");
        Objects.requireNonNull(options, "options");
    }

    private <T> Result<T> run(IdempotencyKey key, Object request, JavaType type, CallOptions options,
            Execution.Runner<? extends T> runner) {
        Objects.requireNonNull(key, "key must not be null: build one with IdempotencyKey.of(scope, operation, key)");
        Objects.requireNonNull(request, "request must not be null: it is what the fingerprint is taken of; pass"
                + " the request object, JSON text or bytes (for a request with no content, \"null\" or"
                + " NullNode.getInstance())");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(runner, "work");
        return new Execution<T>(this, key, type, options, runner).run(request);
    }

    /** Encodes a success value: {@link StoredBytes} as they are, anything else as JSON. */
    byte[] encodeSuccess(Object value) {
        return value instanceof StoredBytes b ? b.encode(codec) : codec.encodeSuccess(value);
    }

    /**
     * Decodes a success outcome as {@code type}: a {@link StoredBytes} type views the stored bytes
     * (a JSON outcome's text, too), and so does the untyped call for an outcome stored as bytes.
     */
    Object decodeSuccess(byte[] outcome, JavaType type) {
        Class<?> raw = type.getRawClass();
        if (raw == StoredBytes.class || raw == Object.class && codec.kind(outcome) == OutcomeCodec.Kind.BYTES) {
            return StoredBytes.view(outcome, 1, outcome.length - 1);
        }
        return codec.decodeSuccess(outcome, type);
    }

    // Work bound to another store would complete a record this engine never claimed: its fenced
    // completion matches nothing and it would be answered "lease lost", which is false.
    private void checkSameStore(AtomicWork<?> work) {
        IdempotencyStore bound = Objects.requireNonNull(work, "work").store();
        if (bound != null && !store.isBackedBy(bound)) {
            throw new ForeignStoreWorkException(store, bound);
        }
    }

    private static int positiveWidth(int width) {
        if (width < 1) {
            throw new IllegalArgumentException("the store's NonBlockingStore.maxCallsInFlight() must be positive but"
                    + " was " + width);
        }
        return width;
    }

    /** Asks a key provider for its current key once, so a misconfigured one fails at build time. */
    private static void checkCurrent(String setting, KeyProvider keys) {
        if (keys != null && keys.current() == null) {
            throw new IllegalArgumentException(setting + ": the key provider " + keys + " has no current key");
        }
    }

    long nextToken() {
        return tokenBase + tokenCounter.incrementAndGet();
    }

    /**
     * The longest duration the engine accepts for a TTL, lease, wait or hint (3650 days).
     * Bounded so that {@code now + ttl} can overflow no store's arithmetic (epoch
     * milliseconds, epoch seconds, SQL timestamps) and millisecond conversions stay exact.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(3650);

    /**
     * How long the heartbeat keeps the lease of pending asynchronous work by default: 5 minutes
     * (see {@link Builder#maxPendingWork}).
     */
    public static final Duration DEFAULT_MAX_PENDING_WORK = Duration.ofMinutes(5);

    /** How many asynchronous calls an engine has in flight at most by default (see {@link Builder#maxAsyncCalls}). */
    public static final int DEFAULT_MAX_ASYNC_CALLS = 10_000;

    /**
     * The shortest lease a caller's deadline may cut a claim's lease to, by default: 5 s (see
     * {@link Builder#minBudgetLease}).
     */
    public static final Duration DEFAULT_MIN_BUDGET_LEASE = Duration.ofSeconds(5);

    static Duration positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive but was " + d);
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_DURATION.toDays()
                    + " days but was " + d);
        }
        if (d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms but was " + d);
        }
        return d;
    }

    /**
     * Validating builder (each setter checks its argument at once and may be called once);
     * {@link #build()} rejects contradictory settings.
     */
    public static final class Builder {
        private IdempotencyStore store;
        private ObjectMapper mapper;
        private JsonCodec json;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.system();
        private RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
        private Sleeper sleeper = Sleeper.system();
        private Duration lease = Duration.ofSeconds(30);
        private Duration ttl = Duration.ofHours(24);
        private InProgressPolicy inProgress = InProgressPolicy.failFast();
        private Duration retryAfterHint = Duration.ofSeconds(1);
        private FailureClassifier classifier = FailureClassifier.ALL_TRANSIENT;
        private IdempotencyListener listener = IdempotencyListener.NONE;
        private int nearCacheSize;
        private int maxRequestBytes = 1024 * 1024;
        private int completeAttempts = 3;
        private int maxOutcomeBytes;
        private final List<String> excluded = new ArrayList<>();
        private final Map<String, String> properties = new HashMap<>();
        private ClassLoader classLoader;
        private Executor asyncExecutor;
        private Executor renewalExecutor;
        private Scheduler scheduler;
        private Duration maxPendingWork = DEFAULT_MAX_PENDING_WORK;
        private int maxAsyncCalls = DEFAULT_MAX_ASYNC_CALLS;
        private Duration minBudgetLease = DEFAULT_MIN_BUDGET_LEASE;
        private KeyProvider outcomeKeys;
        private boolean refuseUnencrypted;
        private KeyProvider fingerprintSecrets;
        private OutcomeFilter outcomeFilter;
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder() {
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The store (the main path). If never set, the one {@link dev.idem.api.store.StoreProvider} on the class path is used.
         *
         * @param store the store (default: the one {@code StoreProvider} found on the class path)
         * @return this builder
         */
        public Builder store(IdempotencyStore store) {
            once("store");
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The ObjectMapper for results and POJO requests; a copy with default typing off is used.
         *
         * @param mapper the Jackson mapper for results and requests
         * @return this builder
         */
        public Builder objectMapper(ObjectMapper mapper) {
            once("objectMapper");
            this.mapper = Objects.requireNonNull(mapper, "objectMapper");
            return this;
        }

        /**
         * The JSON library for results, step results and object requests, instead of Jackson 2
         * ({@link JsonCodec}; idem-jackson3 has Jackson 3). Fingerprints do not depend on it for
         * requests both libraries write alike. Not together with {@link #objectMapper}.
         *
         * @param codec the codec
         * @return this builder
         */
        public Builder jsonCodec(JsonCodec codec) {
            once("jsonCodec");
            this.json = Objects.requireNonNull(codec, "jsonCodec");
            return this;
        }

        /**
         * The wall clock handed to a store this engine discovers (default system UTC). The engine
         * itself reads no wall clock: every duration it measures is on the {@link #ticker(Ticker)}.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            once("clock");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The monotonic nanosecond source of every duration the engine measures (default
         * {@link Ticker#system()}): bounded waits, a lease running out between steps, near-cache
         * entries' lives, event durations. Inject a fake that moves with a test's simulated time.
         *
         * @param ticker the monotonic time source for durations and waits
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            once("ticker");
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Randomness for the backoff jitter of waiting duplicates. Fencing tokens never come from
         * it: the engine draws them from its own source, unique per claim.
         *
         * @param random the jitter source
         * @return this builder
         */
        public Builder random(RandomGenerator random) {
            once("random");
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * How the engine pauses while waiting for an in-progress duplicate.
         *
         * @param sleeper how the engine waits between polls
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            once("sleeper");
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * How long a claim is protected before a duplicate may take it over (default 30 s).
         *
         * @param lease how long a claim holds the key
         * @return this builder
         */
        public Builder lease(Duration lease) {
            once("lease");
            this.lease = positive("lease", lease);
            return this;
        }

        /**
         * How long records live (default 24 h); an expired record counts as absent.
         *
         * @param ttl how long the completed record lives
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            once("ttl");
            this.ttl = positive("ttl", ttl);
            return this;
        }

        /**
         * What a duplicate does while the key is in progress (default fail fast, 409).
         *
         * @param policy what a duplicate does while the key is in progress
         * @return this builder
         */
        public Builder inProgress(InProgressPolicy policy) {
            once("inProgress");
            this.inProgress = Objects.requireNonNull(policy, "inProgress");
            return this;
        }

        /**
         * The longest retry-after hint given with a 409 (default 1 s; never more than the lease left).
         *
         * @param hint the retry-after hint
         * @return this builder
         */
        public Builder retryAfterHint(Duration hint) {
            once("retryAfterHint");
            this.retryAfterHint = positive("retryAfterHint", hint);
            return this;
        }

        /**
         * Which failures are final (stored and replayed); default: none.
         *
         * @param classifier decides which failures are final
         * @return this builder
         */
        public Builder failureClassifier(FailureClassifier classifier) {
            once("failureClassifier");
            this.classifier = Objects.requireNonNull(classifier, "failureClassifier");
            return this;
        }

        /**
         * Receives events for metrics and logs.
         *
         * @param listener receives every engine event
         * @return this builder
         */
        public Builder listener(IdempotencyListener listener) {
            once("listener");
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Enables a process-local cache of up to {@code maxEntries} completed records (off by
         * default). Entries expire by this engine's clock against the record's expiry, which a
         * server-clock store set by its own clock: keep node clocks within a small fraction of the TTL.
         *
         * @param maxEntries the most COMPLETED records cached
         * @return this builder
         */
        public Builder nearCache(int maxEntries) {
            once("nearCache");
            if (maxEntries < 1) {
                throw new IllegalArgumentException("nearCache maxEntries must be positive but was " + maxEntries);
            }
            this.nearCacheSize = maxEntries;
            return this;
        }

        /**
         * The largest request fingerprinted, in bytes (default 1 MiB); larger ones are rejected with 413.
         *
         * @param maxRequestBytes the largest request accepted
         * @return this builder
         */
        public Builder maxRequestBytes(int maxRequestBytes) {
            once("maxRequestBytes");
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be positive but was " + maxRequestBytes);
            }
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        /**
         * How many times a complete is tried when the store fails after the work ran (default 3).
         *
         * @param attempts how many times the completion is tried
         * @return this builder
         */
        public Builder completeAttempts(int attempts) {
            once("completeAttempts");
            if (attempts < 1 || attempts > 10) {
                throw new IllegalArgumentException("completeAttempts must be within 1..10 but was " + attempts);
            }
            this.completeAttempts = attempts;
            return this;
        }

        /**
         * The largest outcome (and step journal) stored, in bytes (default
         * {@link IdempotencyEngine#DEFAULT_MAX_OUTCOME_BYTES}, the same on every store). Over
         * it an outcome is replaced by a stored "outcome not stored" marker, so the work does
         * not run again for the key until the record expires. May be raised up to what the
         * store holds ({@link StoreCapabilities#maxOutcomeBytes()}; some stores take a larger
         * limit of their own, such as {@code idem.store.jdbc.max-outcome-bytes}).
         *
         * @param maxOutcomeBytes the limit in bytes, positive
         * @return this builder
         * @throws IllegalArgumentException if it is not positive ({@link #build()} also rejects
         *     one over the store's own limit)
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            once("maxOutcomeBytes");
            if (maxOutcomeBytes < 1) {
                throw new IllegalArgumentException("maxOutcomeBytes must be positive but was " + maxOutcomeBytes);
            }
            this.maxOutcomeBytes = maxOutcomeBytes;
            return this;
        }

        /**
         * Leaves these RFC 6901 JSON Pointers out of every fingerprint (client timestamps, trace ids).
         *
         * @param pointers JSON Pointers (RFC 6901) of request fields to leave out
         * @return this builder
         */
        public Builder excludeFromFingerprint(String... pointers) {
            List<String> list = List.of(pointers);
            PointerSet.of(list);
            excluded.addAll(list);
            return this;
        }

        /**
         * A property for a discovered {@link dev.idem.api.store.StoreProvider}.
         *
         * @param name the property name
         * @param value the property value
         * @return this builder
         */
        public Builder storeProperty(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (properties.putIfAbsent(name, value) != null) {
                throw new IllegalStateException("store property " + name + " was already set");
            }
            return this;
        }

        /**
         * The class loader providers are discovered in (default: the thread's context class loader).
         *
         * @param loader where {@code StoreProvider}s are looked up
         * @return this builder
         */
        public Builder classLoader(ClassLoader loader) {
            once("classLoader");
            this.classLoader = Objects.requireNonNull(loader, "classLoader");
            return this;
        }

        /**
         * Where asynchronous calls run their store calls (claim, complete, release) and start
         * their work; lease renewals have their own ({@link #leaseRenewalExecutor}). At most
         * max(8, 4 &times; cores) store calls of the engine are handed to it at once, the rest
         * wait in the engine without a thread. Default: a virtual thread per task on Java 21+,
         * else a bounded pool of daemon platform threads (max(8, 4 &times; cores)), created on
         * the first asynchronous call and shut down by {@link IdempotencyEngine#close()}. A given
         * executor stays the caller's; it must not run tasks on an event loop, since store calls
         * block. If it refuses the call that ends a claimed key (stores the outcome), that call
         * runs on the engine's renewal threads instead, so the outcome is not lost.
         *
         * @param executor the executor
         * @return this builder
         */
        public Builder asyncExecutor(Executor executor) {
            once("asyncExecutor");
            this.asyncExecutor = Objects.requireNonNull(executor, "asyncExecutor");
            return this;
        }

        /**
         * Where the heartbeat of pending asynchronous work, and of blocking work whose lease a
         * caller's deadline shortened ({@link #minBudgetLease}), runs its lease renewals. Default: the
         * engine's own, a virtual thread per renewal on Java 21+, else a pool of daemon platform
         * threads (4 &times; the async pool's, idle ones end), with a timer thread of their own
         * unless a {@link #scheduler} is given; created on the first renewal and shut down by
         * {@link IdempotencyEngine#close()}. Renewals never run on the {@link #asyncExecutor}, whose
         * queue holds other callers' claims: a renewal that waits behind them lets the lease lapse
         * and a duplicate run the work again. Give one only with capacity of its own (a
         * container's managed executor, say); it stays the caller's.
         *
         * @param executor the executor of lease renewals
         * @return this builder
         */
        public Builder leaseRenewalExecutor(Executor executor) {
            once("leaseRenewalExecutor");
            this.renewalExecutor = Objects.requireNonNull(executor, "leaseRenewalExecutor");
            return this;
        }

        /**
         * The timer of asynchronous calls: the polls of a duplicate waiting for an in-progress key,
         * and the heartbeat of pending work. Default: one daemon timer thread, created on the first
         * asynchronous call. Inject a fake that runs tasks as a test's simulated time passes.
         *
         * @param scheduler the scheduler
         * @return this builder
         */
        public Builder scheduler(Scheduler scheduler) {
            once("scheduler");
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * How long the lease of asynchronous work whose stage is still pending is kept alive by
         * the heartbeat (default {@link IdempotencyEngine#DEFAULT_MAX_PENDING_WORK}, 5 minutes).
         * The heartbeat extends the lease every third of the lease; after this long (on the
         * ticker) it stops, the lease lapses within one more lease, and a duplicate may take the
         * key over, so a stage that never completes does not hold its key forever.
         *
         * @param maxPending at least 1 ms, at most {@link IdempotencyEngine#MAX_DURATION}
         * @return this builder
         */
        public Builder maxPendingWork(Duration maxPending) {
            once("maxPendingWork");
            this.maxPendingWork = positive("maxPendingWork", maxPending);
            return this;
        }

        /**
         * The most asynchronous calls in flight at once (default
         * {@link IdempotencyEngine#DEFAULT_MAX_ASYNC_CALLS}): a call counts from
         * {@code executeAsync} until its answer completes, or, if its caller cancelled it while
         * its work runs, until that work ends. A call beyond the bound is answered at once with
         * {@link AsyncCallsFullException}; it claims nothing and runs nothing.
         *
         * @param max at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is less than 1
         */
        public Builder maxAsyncCalls(int max) {
            once("maxAsyncCalls");
            if (max < 1) {
                throw new IllegalArgumentException("maxAsyncCalls must be at least 1 but was " + max);
            }
            this.maxAsyncCalls = max;
            return this;
        }

        // --- What is stored, and how (see the README's "Protecting what is stored") ---

        /**
         * Encrypts every stored outcome and step journal at rest with AES-256-GCM (the JDK's),
         * under the current key of {@code keys} (off by default). Each record is bound to its
         * scope, operation, key and fingerprint, so an outcome copied to another record does not
         * decrypt. Rotation: make a new key current while the provider still finds the old one;
         * records written before stay readable until they expire. Records stored before
         * encryption was turned on are still read, unless {@link #refuseUnencryptedRecords()}.
         * A record that cannot be decrypted is answered with {@link OutcomeUnreadableException}
         * (HTTP 500) naming its key id, and its work never runs again.
         *
         * @param keys the encryption keys ({@link KeyRing} for keys given in code or configuration)
         * @return this builder
         * @throws IllegalStateException if called twice
         */
        public Builder encryptOutcomes(KeyProvider keys) {
            once("encryptOutcomes");
            this.outcomeKeys = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /**
         * With {@link #encryptOutcomes}, refuses to read an outcome or journal that is not
         * encrypted ({@link OutcomeUnreadableException}, reason {@code NOT_ENCRYPTED}) instead
         * of reading it as stored before encryption was turned on. Set it once every record
         * written before has expired (one TTL after turning encryption on): then nothing written
         * into the store in clear is ever replayed.
         *
         * @return this builder
         * @throws IllegalStateException if called twice ({@link #build()}: without {@code encryptOutcomes})
         */
        public Builder refuseUnencryptedRecords() {
            once("refuseUnencryptedRecords");
            this.refuseUnencrypted = true;
            return this;
        }

        /**
         * Keys request fingerprints with a secret: HMAC-SHA-256 under the current secret of
         * {@code secrets} instead of plain SHA-256 (off by default), so that whoever reads the
         * store cannot recover a low-entropy request by trying candidates. Each fingerprint names
         * its secret's id, so turning this on, or rotating the secret, never makes a retry of a
         * key claimed before look like another request: it is compared in the version the record
         * holds, for as long as the provider still finds that secret (keep an old secret one TTL).
         * A record keyed with a secret no longer provided is answered with
         * {@link OutcomeUnreadableException} naming its id. Use other secrets than for
         * {@link #encryptOutcomes}.
         *
         * @param secrets the fingerprint secrets
         * @return this builder
         * @throws IllegalStateException if called twice
         */
        public Builder keyedFingerprints(KeyProvider secrets) {
            once("keyedFingerprints");
            this.fingerprintSecrets = Objects.requireNonNull(secrets, "secrets");
            return this;
        }

        /**
         * Decides what of every call's result is stored and how a replay rebuilds it
         * ({@link OutcomeFilter}); applied before encryption. A call's
         * {@link CallOptions.Builder#outcomeFilter} replaces it for that call.
         *
         * @param filter the filter
         * @return this builder
         * @throws IllegalStateException if called twice
         */
        public Builder outcomeFilter(OutcomeFilter filter) {
            once("outcomeFilter");
            this.outcomeFilter = Objects.requireNonNull(filter, "outcomeFilter");
            return this;
        }

        /**
         * The shortest lease a caller's deadline ({@link CallOptions#deadline()}) may cut a claim's
         * lease to (default {@link IdempotencyEngine#DEFAULT_MIN_BUDGET_LEASE}, 5 s). A call with a
         * deadline claims with {@code min(lease, max(time left, minBudgetLease))}, so a worker that
         * dies blocks the key about as long as its caller waits rather than a whole lease. While the
         * work runs, a heartbeat renews that shorter lease every third of it (asynchronous work's
         * heartbeat as always; blocking work's for at most the call's lease; both on the
         * {@link #leaseRenewalExecutor}, never behind other callers' work), so a live worker keeps its
         * key as long as it would without a deadline. Set it to the lease or longer to keep deadlines
         * off leases. Too short a value lets a renewal that the machine delays by two thirds of it
         * lose a live worker's key: keep it well above the worst pause (GC, a starved store) you expect.
         *
         * @param minBudgetLease at least 1 ms, at most {@link IdempotencyEngine#MAX_DURATION}
         * @return this builder
         */
        public Builder minBudgetLease(Duration minBudgetLease) {
            once("minBudgetLease");
            this.minBudgetLease = positive("minBudgetLease", minBudgetLease);
            return this;
        }

        /**
         * Builds the engine.
         *
         * @return the engine
         * @throws IllegalArgumentException if the lease is not shorter than the TTL, or
         *     {@link #maxOutcomeBytes(int)} exceeds what the store holds
         * @throws IllegalStateException if both {@code objectMapper} and {@code jsonCodec} were set, or
         *     if no store was given and discovery finds zero or several
         */
        public IdempotencyEngine build() {
            if (json != null && mapper != null) {
                throw new IllegalStateException("objectMapper and jsonCodec were both set; the codec writes JSON, "
                        + "give the mapper to the codec instead");
            }
            if (lease.compareTo(ttl) >= 0) {
                throw new IllegalArgumentException("lease (" + lease + ") must be shorter than ttl (" + ttl + ")");
            }
            if (inProgress.waits() && inProgress.maxWait().compareTo(ttl) > 0) {
                throw new IllegalArgumentException(
                        "inProgress wait (" + inProgress.maxWait() + ") must not exceed ttl (" + ttl + ")");
            }
            if (refuseUnencrypted && outcomeKeys == null) {
                throw new IllegalStateException("refuseUnencryptedRecords needs encryptOutcomes: without keys no"
                        + " record could be read");
            }
            checkCurrent("encryptOutcomes", outcomeKeys);
            checkCurrent("keyedFingerprints", fingerprintSecrets);
            return new IdempotencyEngine(this);
        }
    }
}
