package dev.idem.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.time.Scheduler;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.OutcomeFilter;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Builds an {@link IdempotencyEngine}: {@code IdempotencyEngine.builder().store(store).build()}.
 * Each setter checks its argument at once and may be called once; {@link #build()} rejects
 * contradictory settings. The settings come in sections: the store, the defaults of what
 * {@link CallOptions} override per call ({@link #defaults(CallOptions)} or one setter each),
 * duplicates and failures, JSON and sizes, time, asynchronous calls, what is stored, and
 * observability.
 */
public final class IdempotencyEngineBuilder {
    private static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    private static final Duration DEFAULT_TTL = Duration.ofHours(24);

    // Package-private: the engine's constructor reads them.
    @Nullable IdempotencyStore store;
    @Nullable ObjectMapper mapper;
    @Nullable JsonCodec json;
    Clock clock = Clock.systemUTC();
    Ticker ticker = Ticker.system();
    RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
    Sleeper sleeper = Sleeper.system();
    Duration retryAfterHint = Duration.ofSeconds(1);
    FailureClassifier classifier = FailureClassifier.ALL_TRANSIENT;
    IdempotencyListener listener = IdempotencyListener.NONE;
    int nearCacheSize;
    int maxRequestBytes = 1024 * 1024;
    int completeAttempts = 3;
    int maxOutcomeBytes;
    final Map<String, String> properties = new HashMap<>();
    @Nullable ClassLoader classLoader;
    @Nullable Executor asyncExecutor;
    @Nullable Executor renewalExecutor;
    @Nullable Scheduler scheduler;
    Duration maxPendingWork = IdempotencyEngine.DEFAULT_MAX_PENDING_WORK;
    int maxAsyncCalls = IdempotencyEngine.DEFAULT_MAX_ASYNC_CALLS;
    Duration minBudgetLease = IdempotencyEngine.DEFAULT_MIN_BUDGET_LEASE;
    @Nullable KeyProvider outcomeKeys;
    boolean refuseUnencrypted;
    @Nullable KeyProvider fingerprintSecrets;
    /** TTL, lease, in-progress policy, exclusions and outcome filter: checked by CallOptions, once. */
    private CallOptions.Builder defaults = CallOptions.builder();
    private @Nullable String defaultSetBySetter;
    private final Set<String> set = new HashSet<>();

    IdempotencyEngineBuilder() {
    }

    private void once(String name) {
        if (!set.add(name)) {
            throw new IllegalStateException(name + " was already set");
        }
    }

    // --- Store ---

    /**
     * The store (the main path). If never set, the one {@link dev.idem.api.store.StoreProvider}
     * on the class path is used.
     *
     * @param store the store (default: the one {@code StoreProvider} found on the class path)
     * @return this builder
     */
    public IdempotencyEngineBuilder store(IdempotencyStore store) {
        once("store");
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * A property for a discovered {@link dev.idem.api.store.StoreProvider}.
     *
     * @param name the property name
     * @param value the property value
     * @return this builder
     */
    public IdempotencyEngineBuilder storeProperty(String name, String value) {
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
    public IdempotencyEngineBuilder classLoader(ClassLoader loader) {
        once("classLoader");
        this.classLoader = Objects.requireNonNull(loader, "classLoader");
        return this;
    }

    /**
     * The wall clock handed to a store this engine discovers (default system UTC). The engine
     * itself reads no wall clock: every duration it measures is on the {@link #ticker(Ticker)}.
     *
     * @param clock the clock
     * @return this builder
     */
    public IdempotencyEngineBuilder clock(Clock clock) {
        once("clock");
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    // --- Call defaults: what CallOptions override per call ---

    /**
     * The engine-wide defaults of what {@link CallOptions} set per call: TTL, lease, in-progress
     * policy, fields left out of every fingerprint, outcome filter (the engine's defaults are
     * 24 h TTL, 30 s lease, fail fast, none, none). A call's options override them one by one.
     * The five setters below set one of them each; give this first, if at all, and they add to
     * it (each option still once). Lets one set of options be shared by an engine and the
     * calls that start from it ({@code IdempotencyEngine.builder().defaults(base)}, and per call
     * {@code base.toBuilder().ttl(...).build()}).
     *
     * @param options the defaults; without a deadline (a deadline belongs to one call)
     * @return this builder
     * @throws IllegalArgumentException if {@code options} carry a deadline
     * @throws IllegalStateException if called twice, or after one of the five setters
     */
    public IdempotencyEngineBuilder defaults(CallOptions options) {
        Objects.requireNonNull(options, "defaults");
        if (options.deadline() != null) {
            throw new IllegalArgumentException("defaults carry a deadline (" + options.deadline() + "); a deadline"
                    + " belongs to one call: pass it with the call's options");
        }
        if (defaultSetBySetter != null) {
            throw new IllegalStateException("defaults must be given before " + defaultSetBySetter
                    + ", which adds to them");
        }
        once("defaults");
        this.defaults = options.toBuilder();
        return this;
    }

    private CallOptions.Builder callDefault(String name) {
        if (defaultSetBySetter == null) {
            defaultSetBySetter = name;
        }
        return defaults;
    }

    /**
     * How long records live (default 24 h); an expired record counts as absent.
     *
     * @param ttl how long the completed record lives
     * @return this builder
     */
    public IdempotencyEngineBuilder ttl(Duration ttl) {
        callDefault("ttl").ttl(ttl);
        return this;
    }

    /**
     * How long a claim is protected before a duplicate may take it over (default 30 s).
     *
     * @param lease how long a claim holds the key
     * @return this builder
     */
    public IdempotencyEngineBuilder lease(Duration lease) {
        callDefault("lease").lease(lease);
        return this;
    }

    /**
     * What a duplicate does while the key is in progress (default fail fast, 409).
     *
     * @param policy what a duplicate does while the key is in progress
     * @return this builder
     */
    public IdempotencyEngineBuilder inProgress(InProgressPolicy policy) {
        callDefault("inProgress").inProgress(policy);
        return this;
    }

    /**
     * Leaves these RFC 6901 JSON Pointers out of every fingerprint (client timestamps, trace ids).
     *
     * @param pointers JSON Pointers (RFC 6901) of request fields to leave out
     * @return this builder
     */
    public IdempotencyEngineBuilder excludeFromFingerprint(String... pointers) {
        callDefault("excludeFromFingerprint").excludeFromFingerprint(pointers);
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
    public IdempotencyEngineBuilder outcomeFilter(OutcomeFilter filter) {
        callDefault("outcomeFilter").outcomeFilter(filter);
        return this;
    }

    // --- Duplicates and failures ---

    /**
     * The longest retry-after hint given with a 409 (default 1 s; never more than the lease left).
     *
     * @param hint the retry-after hint
     * @return this builder
     */
    public IdempotencyEngineBuilder retryAfterHint(Duration hint) {
        once("retryAfterHint");
        this.retryAfterHint = IdempotencyEngine.positive("retryAfterHint", hint);
        return this;
    }

    /**
     * Which failures are final (stored and replayed); default: none.
     *
     * @param classifier decides which failures are final
     * @return this builder
     */
    public IdempotencyEngineBuilder failureClassifier(FailureClassifier classifier) {
        once("failureClassifier");
        this.classifier = Objects.requireNonNull(classifier, "failureClassifier");
        return this;
    }

    /**
     * How many times a complete is tried when the store fails after the work ran (default 3).
     *
     * @param attempts how many times the completion is tried
     * @return this builder
     */
    public IdempotencyEngineBuilder completeAttempts(int attempts) {
        once("completeAttempts");
        if (attempts < 1 || attempts > 10) {
            throw new IllegalArgumentException("completeAttempts must be within 1..10 but was " + attempts);
        }
        this.completeAttempts = attempts;
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
    public IdempotencyEngineBuilder minBudgetLease(Duration minBudgetLease) {
        once("minBudgetLease");
        this.minBudgetLease = IdempotencyEngine.positive("minBudgetLease", minBudgetLease);
        return this;
    }

    // --- JSON and sizes ---

    /**
     * The ObjectMapper for results and POJO requests; a copy with default typing off is used.
     *
     * @param mapper the Jackson mapper for results and requests
     * @return this builder
     */
    public IdempotencyEngineBuilder objectMapper(ObjectMapper mapper) {
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
    public IdempotencyEngineBuilder jsonCodec(JsonCodec codec) {
        once("jsonCodec");
        this.json = Objects.requireNonNull(codec, "jsonCodec");
        return this;
    }

    /**
     * The largest request fingerprinted, in bytes (default 1 MiB); larger ones are rejected with 413.
     *
     * @param maxRequestBytes the largest request accepted
     * @return this builder
     */
    public IdempotencyEngineBuilder maxRequestBytes(int maxRequestBytes) {
        once("maxRequestBytes");
        if (maxRequestBytes < 1) {
            throw new IllegalArgumentException("maxRequestBytes must be positive but was " + maxRequestBytes);
        }
        this.maxRequestBytes = maxRequestBytes;
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
    public IdempotencyEngineBuilder maxOutcomeBytes(int maxOutcomeBytes) {
        once("maxOutcomeBytes");
        if (maxOutcomeBytes < 1) {
            throw new IllegalArgumentException("maxOutcomeBytes must be positive but was " + maxOutcomeBytes);
        }
        this.maxOutcomeBytes = maxOutcomeBytes;
        return this;
    }

    // --- Time and randomness (inject fakes in tests) ---

    /**
     * The monotonic nanosecond source of every duration the engine measures (default
     * {@link Ticker#system()}): bounded waits, a lease running out between steps, near-cache
     * entries' lives, event durations. Inject a fake that moves with a test's simulated time.
     *
     * @param ticker the monotonic time source for durations and waits
     * @return this builder
     */
    public IdempotencyEngineBuilder ticker(Ticker ticker) {
        once("ticker");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    /**
     * How the engine pauses while waiting for an in-progress duplicate.
     *
     * @param sleeper how the engine waits between polls
     * @return this builder
     */
    public IdempotencyEngineBuilder sleeper(Sleeper sleeper) {
        once("sleeper");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        return this;
    }

    /**
     * Randomness for the backoff jitter of waiting duplicates. Fencing tokens never come from
     * it: the engine draws them from its own source, unique per claim.
     *
     * @param random the jitter source
     * @return this builder
     */
    public IdempotencyEngineBuilder random(RandomGenerator random) {
        once("random");
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    // --- Asynchronous calls ---

    /**
     * Where asynchronous calls run their claims over a blocking store and start their work; the
     * calls of a key a call holds (its lease renewals, the write of its outcome, its release) run
     * on the {@link #leaseRenewalExecutor}, so they never wait in this executor's queue behind
     * other callers' claims. At most max(8, 4 &times; cores) claims of the engine are handed to it
     * at once, the rest wait in the engine without a thread. Default: a virtual thread per task on
     * Java 21+, else a bounded pool of daemon platform threads (max(8, 4 &times; cores)), created
     * on the first asynchronous call and shut down by {@link IdempotencyEngine#close()}. A given
     * executor stays the caller's; it must not run tasks on an event loop, since store calls
     * block. If the renewal executor refuses a call of a held key, it runs here instead, so the
     * outcome is not lost.
     *
     * @param executor the executor
     * @return this builder
     */
    public IdempotencyEngineBuilder asyncExecutor(Executor executor) {
        once("asyncExecutor");
        this.asyncExecutor = Objects.requireNonNull(executor, "asyncExecutor");
        return this;
    }

    /**
     * Where the heartbeat of pending asynchronous work, and of blocking work whose lease a
     * caller's deadline shortened ({@link #minBudgetLease}), runs its lease renewals over a blocking
     * store, and where an asynchronous call writes the outcome of the key it holds (or releases
     * it). Default: the
     * engine's own, a virtual thread per renewal on Java 21+, else a pool of daemon platform
     * threads (4 &times; the async pool's, idle ones end), with a timer thread of their own
     * unless a {@link #scheduler} is given; created on the first renewal and shut down by
     * {@link IdempotencyEngine#close()}. These calls never run on the {@link #asyncExecutor}, whose
     * queue holds other callers' claims: a renewal that waits behind them lets the lease lapse
     * and a duplicate run the work again. Give one only with capacity of its own (a
     * container's managed executor, say); it stays the caller's.
     *
     * @param executor the executor of lease renewals
     * @return this builder
     */
    public IdempotencyEngineBuilder leaseRenewalExecutor(Executor executor) {
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
    public IdempotencyEngineBuilder scheduler(Scheduler scheduler) {
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
    public IdempotencyEngineBuilder maxPendingWork(Duration maxPending) {
        once("maxPendingWork");
        this.maxPendingWork = IdempotencyEngine.positive("maxPendingWork", maxPending);
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
    public IdempotencyEngineBuilder maxAsyncCalls(int max) {
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
    public IdempotencyEngineBuilder encryptOutcomes(KeyProvider keys) {
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
    public IdempotencyEngineBuilder refuseUnencryptedRecords() {
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
    public IdempotencyEngineBuilder keyedFingerprints(KeyProvider secrets) {
        once("keyedFingerprints");
        this.fingerprintSecrets = Objects.requireNonNull(secrets, "secrets");
        return this;
    }

    // --- Observability and caching ---

    /**
     * Receives events for metrics and logs.
     *
     * @param listener receives every engine event
     * @return this builder
     */
    public IdempotencyEngineBuilder listener(IdempotencyListener listener) {
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
    public IdempotencyEngineBuilder nearCache(int maxEntries) {
        once("nearCache");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("nearCache maxEntries must be positive but was " + maxEntries);
        }
        this.nearCacheSize = maxEntries;
        return this;
    }

    // --- Building ---

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
        CallOptions given = defaults.build();
        CallOptions.Builder full = given.toBuilder();
        if (given.ttl() == null) {
            full.ttl(DEFAULT_TTL);
        }
        if (given.lease() == null) {
            full.lease(DEFAULT_LEASE);
        }
        if (given.inProgress() == null) {
            full.inProgress(InProgressPolicy.failFast());
        }
        CallOptions resolved = full.build();
        CallOptions.checkConsistent(resolved.lease(), resolved.ttl(), resolved.inProgress());
        if (refuseUnencrypted && outcomeKeys == null) {
            throw new IllegalStateException("refuseUnencryptedRecords needs encryptOutcomes: without keys no"
                    + " record could be read");
        }
        checkCurrent("encryptOutcomes", outcomeKeys);
        checkCurrent("keyedFingerprints", fingerprintSecrets);
        return new IdempotencyEngine(this, resolved);
    }

    /** Asks a key provider for its current key once, so a misconfigured one fails at build time. */
    private static void checkCurrent(String setting, @Nullable KeyProvider keys) {
        if (keys != null && keys.current() == null) {
            throw new IllegalArgumentException(setting + ": the key provider " + keys + " has no current key");
        }
    }
}
