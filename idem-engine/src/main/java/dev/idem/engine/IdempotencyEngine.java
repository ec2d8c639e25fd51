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
 * <h2>The call forms</h2>
 * Three kinds of work, each with a {@code Result} form and a value form; each with the result
 * type as a {@code Class} or a {@code TypeReference}, with the engine's defaults or with
 * {@link CallOptions}. Every cell of the grid exists (24 forms):
 * <table>
 *   <caption>Call forms: {@code (key, request, type, [options,] work)}</caption>
 *   <tr><th>work</th><th>returns {@link Result}</th><th>returns the value</th></tr>
 *   <tr><td>blocking {@link Work}</td><td>{@code execute}</td><td>{@code call}</td></tr>
 *   <tr><td>{@link AtomicWork}, completing the record in its own transaction</td>
 *       <td>{@code executeAtomically}</td><td>{@code callAtomically}</td></tr>
 *   <tr><td>{@link AsyncWork}, returning a {@code CompletionStage}</td>
 *       <td>{@code executeAsync}</td><td>{@code callAsync}</td></tr>
 * </table>
 * Two more leave the type out, {@code execute(key, request, work)} and
 * {@code executeAsync(key, request, work)}: they are the {@code Object.class} forms, whose value
 * is plain JSON values (Map, List, String, Number, Boolean) the first time as on replay. There
 * are no untyped value or atomic forms: a value form without a type would return the same
 * untyped JSON as {@code execute(...).value()}, and atomic work returns a domain value that
 * replays must decode to its type. Options without a type: pass {@code Object.class}.
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
 * {@link IdempotencyEngineBuilder#minBudgetLease}, and a heartbeat then keeps a live worker's key.
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
    /** Everything the engine's calls are made of, built once. */
    final EngineParts parts;
    private final boolean ownsStore;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * The default {@link #maxOutcomeBytes()}: 393,216 bytes (384 KiB), what the smallest store
     * holds in one record (DynamoDB's 400 KB item, less room for the record's other attributes),
     * so that an application behaves alike on every store. Raise it per engine with
     * {@link IdempotencyEngineBuilder#maxOutcomeBytes(int)}, up to what the store holds.
     */
    public static final int DEFAULT_MAX_OUTCOME_BYTES = 393_216;

    IdempotencyEngine(IdempotencyEngineBuilder b, CallOptions defaults) {
        this.ownsStore = b.store == null;
        IdempotencyStore store = b.store != null ? b.store
                : StoreDiscovery.discover(b.classLoader != null ? b.classLoader
                        : Thread.currentThread().getContextClassLoader(), b.clock, b.properties);
        OutcomeCodec codec = b.json != null ? new OutcomeCodec(b.json)
                : new OutcomeCodec(b.mapper != null ? b.mapper : new ObjectMapper().findAndRegisterModules());
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
        AsyncRuntime async = new AsyncRuntime(b.asyncExecutor, b.renewalExecutor, b.scheduler, b.maxPendingWork,
                b.maxAsyncCalls);
        LanedPort laned = new LanedPort(store, AsyncRuntime.blockingLane(b.asyncExecutor), async::executor,
                async::renewals, b.sleeper);
        // Read once, like the capabilities: a store offers its non-blocking form for its whole life.
        NonBlockingStore nonBlocking = store.nonBlocking().orElse(null);
        // The one place that decides how a call reaches the store: a blocking call on its own thread, an
        // asynchronous one through the store's non-blocking form if it offers one, else on the engine's threads.
        StorePort asyncPort = nonBlocking == null ? laned
                : new NonBlockingPort(nonBlocking, new StoreLane(positiveWidth(nonBlocking.maxCallsInFlight())), async);
        DirectPort direct = new DirectPort(store, b.sleeper, laned, b.completeAttempts);
        this.parts = new EngineParts(store, direct, asyncPort, codec,
                new Fingerprinter(codec.json(), b.maxRequestBytes, defaults.excludedSet(), b.fingerprintSecrets),
                b.outcomeKeys == null && !b.refuseUnencrypted ? Sealer.NONE
                        : new Sealer(b.outcomeKeys, b.refuseUnencrypted),
                defaults.outcomeFilter(), b.ticker, b.random, b.sleeper, defaults.lease(), defaults.ttl(),
                defaults.inProgress(), b.retryAfterHint, b.classifier, b.listener,
                b.nearCacheSize > 0 ? new NearCache(b.nearCacheSize, b.ticker) : null, b.completeAttempts,
                b.maxOutcomeBytes > 0 ? b.maxOutcomeBytes : Math.min(DEFAULT_MAX_OUTCOME_BYTES, storeHolds),
                b.minBudgetLease, async, new SharedPolls(b.ticker), new EngineParts.Tokens());
    }

    /**
     * A builder with the defaults: 30 s lease, 24 h TTL, fail-fast duplicates, all failures transient.
     *
     * @return a new builder
     */
    public static IdempotencyEngineBuilder builder() {
        return new IdempotencyEngineBuilder();
    }

    /**
     * The store this engine uses (the discovered one if none was given).
     *
     * @return the store
     */
    public IdempotencyStore store() {
        return parts.store();
    }

    /**
     * The monotonic ticker this engine measures every duration on (see {@link IdempotencyEngineBuilder#ticker}):
     * make a call's deadline on it ({@code Deadline.after(budget, engine.ticker())}) so that a
     * test's simulated time moves both alike.
     *
     * @return the ticker
     */
    public Ticker ticker() {
        return parts.ticker();
    }

    /**
     * The largest outcome (and step journal) this engine stores, in bytes: the one set with
     * {@link IdempotencyEngineBuilder#maxOutcomeBytes(int)}, else {@link #DEFAULT_MAX_OUTCOME_BYTES} (or the
     * store's own limit, if lower). Over it, the work's outcome is replaced by a stored marker
     * ({@link OutcomeNotStoredException}) and a step's result fails the key finally
     * ({@link StepJournalTooLargeException}), on every store alike.
     *
     * @return the limit in bytes
     */
    public int maxOutcomeBytes() {
        return parts.maxOutcomeBytes();
    }

    /**
     * The JSON codec this engine writes results with (the builder's, else Jackson 2 over its
     * ObjectMapper): for adapters that must know how large a result will be before they hand it
     * over, as idem-reactor does while it collects a {@code Flux}.
     *
     * @return the codec
     */
    public JsonCodec jsonCodec() {
        return parts.codec().json();
    }

    /**
     * Closes the store if this engine discovered it through a
     * {@link dev.idem.api.store.StoreProvider} (it created it, so it owns it); a store passed
     * to {@link IdempotencyEngineBuilder#store(IdempotencyStore)} is the caller's and is left open. Idempotent.
     * The engine must not be used afterwards.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // Only what the engine created: the builder's executor and scheduler are the caller's.
            parts.async().close();
            if (ownsStore) {
                parts.store().close();
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
     *     the guarantees table in docs/reference.md); the work's own unchecked exceptions on a transient failure
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
        return run(key, request, parts.codec().mapper().constructType(type), options, BlockingCall.plain(work));
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
        return run(key, request, parts.codec().mapper().constructType(type), options, BlockingCall.plain(work));
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
     * The value of {@link #execute(IdempotencyKey, Object, Class, CallOptions, Work)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T call(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            Work<? extends T> work) {
        return execute(key, request, type, options, work).value();
    }

    /**
     * The value of {@link #execute(IdempotencyKey, Object, TypeReference, CallOptions, Work)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T call(IdempotencyKey key, Object request, TypeReference<T> type, CallOptions options,
            Work<? extends T> work) {
        return execute(key, request, type, options, work).value();
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
     * Generic-type variant of {@link #executeAtomically(IdempotencyKey, Object, Class, AtomicWork)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, which completes the record itself
     * @return the value, and whether it was replayed
     */
    public <T> Result<T> executeAtomically(IdempotencyKey key, Object request, TypeReference<T> type,
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
     * The value of {@link #executeAtomically(IdempotencyKey, Object, TypeReference, AtomicWork)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param work the operation, which completes the record itself
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T callAtomically(IdempotencyKey key, Object request, TypeReference<T> type,
            AtomicWork<? extends T> work) {
        return executeAtomically(key, request, type, CallOptions.defaults(), work).value();
    }

    /**
     * The value of {@link #executeAtomically(IdempotencyKey, Object, Class, CallOptions, AtomicWork)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, which completes the record itself
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T callAtomically(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            AtomicWork<? extends T> work) {
        return executeAtomically(key, request, type, options, work).value();
    }

    /**
     * The value of {@link #executeAtomically(IdempotencyKey, Object, TypeReference, CallOptions, AtomicWork)}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, which completes the record itself
     * @return the work's value, now or replayed; null if the work returned null
     */
    public <T> @Nullable T callAtomically(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, AtomicWork<? extends T> work) {
        return executeAtomically(key, request, type, options, work).value();
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
        return run(key, request, parts.codec().mapper().constructType(type), options, BlockingCall.atomic(work));
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
        return run(key, request, parts.codec().mapper().constructType(type), options, BlockingCall.atomic(work));
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
     * ({@link IdempotencyEngineBuilder#asyncExecutor}), never on the calling thread; a duplicate that waits for an
     * in-progress key claims again from the {@link IdempotencyEngineBuilder#scheduler scheduler} without parking a
     * thread; the lease of pending work is extended in the background, at most
     * {@link IdempotencyEngineBuilder#maxPendingWork} long. Cancelling the answer detaches the caller: once the key
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
        return runAsync(key, request, parts.codec().mapper().constructType(type), options, work);
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
        return runAsync(key, request, parts.codec().mapper().constructType(type), options, work);
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

    /**
     * The value of {@link #executeAsync(IdempotencyKey, Object, Class, CallOptions, AsyncWork)},
     * failing with the same (unwrapped) exceptions.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, returning a stage
     * @return the work's value, now or replayed
     */
    public <T> CompletableFuture<T> callAsync(IdempotencyKey key, Object request, Class<T> type, CallOptions options,
            AsyncWork<? extends T> work) {
        return valueOf(executeAsync(key, request, type, options, work));
    }

    /**
     * The value of {@link #executeAsync(IdempotencyKey, Object, TypeReference, CallOptions, AsyncWork)},
     * failing with the same (unwrapped) exceptions.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type replays decode to
     * @param options per-call overrides
     * @param work the operation, returning a stage
     * @return the work's value, now or replayed
     */
    public <T> CompletableFuture<T> callAsync(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, AsyncWork<? extends T> work) {
        return valueOf(executeAsync(key, request, type, options, work));
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
        AsyncCall<T> call = new AsyncCall<>(parts, new Execution<T>(parts, key, type, options, request), work,
                parts.asyncPort());
        if (!parts.async().acquire()) {
            return CompletableFuture.failedFuture(new AsyncCallsFullException(parts.async().maxCalls));
        }
        return call.start();
    }

    private static void checkArguments(IdempotencyKey key, Object request, CallOptions options) {
        Objects.requireNonNull(key, "key must not be null: build one with IdempotencyKey.of(scope, operation, key)");
        Objects.requireNonNull(request, "request must not be null: it is what the fingerprint is taken of; pass"
                + " the request object, JSON text or bytes (for a request with no content, \"null\" or"
                + " NullNode.getInstance())");
        Objects.requireNonNull(options, "options");
    }

    private <T> Result<T> run(IdempotencyKey key, Object request, JavaType type, CallOptions options,
            BlockingCall.Runner<? extends T> runner) {
        checkArguments(key, request, options);
        Objects.requireNonNull(runner, "work");
        return new BlockingCall<T>(parts, key, type, options, request, runner).run();
    }

    // Work bound to another store would complete a record this engine never claimed: its fenced
    // completion matches nothing and it would be answered "lease lost", which is false.
    private void checkSameStore(AtomicWork<?> work) {
        IdempotencyStore bound = Objects.requireNonNull(work, "work").store();
        if (bound != null && !parts.store().isBackedBy(bound)) {
            throw new ForeignStoreWorkException(parts.store(), bound);
        }
    }

    private static int positiveWidth(int width) {
        if (width < 1) {
            throw new IllegalArgumentException("the store's NonBlockingStore.maxCallsInFlight() must be positive but"
                    + " was " + width);
        }
        return width;
    }


    /**
     * The longest duration the engine accepts for a TTL, lease, wait or hint (3650 days).
     * Bounded so that {@code now + ttl} can overflow no store's arithmetic (epoch
     * milliseconds, epoch seconds, SQL timestamps) and millisecond conversions stay exact.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(3650);

    /**
     * How long the heartbeat keeps the lease of pending asynchronous work by default: 5 minutes
     * (see {@link IdempotencyEngineBuilder#maxPendingWork}).
     */
    public static final Duration DEFAULT_MAX_PENDING_WORK = Duration.ofMinutes(5);

    /**
     * How many asynchronous calls an engine has in flight at most by default (see
     * {@link IdempotencyEngineBuilder#maxAsyncCalls}).
     */
    public static final int DEFAULT_MAX_ASYNC_CALLS = 10_000;

    /**
     * The shortest lease a caller's deadline may cut a claim's lease to, by default: 5 s (see
     * {@link IdempotencyEngineBuilder#minBudgetLease}).
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
}
