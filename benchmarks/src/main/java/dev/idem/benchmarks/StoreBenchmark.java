package dev.idem.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.RawBaseline;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine on each store against the raw baseline on the same client, for the three
 * paths every call takes: first execution (claim, work, complete), replay of a completed
 * key, and a duplicate that meets a live lease (409). Average time per call; the report
 * divides {@code engineX} by {@code rawX}. The request is {@link Documents#PAYMENT}
 * (about 200 bytes) and the result {@link Receipt#OK}; the work itself costs nothing, so
 * the difference is what idem adds: fingerprint, result codec, token, state machine, and
 * whatever the store does beyond the minimum.
 *
 * <p>{@code adapterFirst} and {@code adapterReplay} split that difference in two: the store
 * adapter called directly through the SPI with the fingerprint and the encoded outcome made
 * beforehand (what the engine asks of the store), so engine over adapter is the engine's own
 * cost (fingerprint, codec, state machine) and adapter over raw is the protocol's (the store's
 * script or statement against the minimal one, and its client-side mapping). Run with
 * {@code -prof dev.idem.benchmarks.internal.ThreadCpuProfiler}, the difference of
 * {@code cpu.time.norm} between engine and adapter is the engine's CPU per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreBenchmark {
    /** The operation name of every benchmarked key. */
    public static final String OPERATION = "charge";
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration TTL = Duration.ofHours(24);
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    /** The store under test. */
    @Param({"MEMORY", "H2", "POSTGRES", "MARIADB", "REDIS", "REDIS_CLUSTER", "DYNAMODB"})
    public Backend backend;

    private Environment env;
    private IdempotencyEngine engine;
    private IdempotencyEngine nearCached;
    private RawBaseline raw;
    private String scope;
    private final AtomicLong sequence = new AtomicLong();
    private byte[] rawFingerprint;
    private byte[] rawOutcome;
    private IdempotencyKey replayKey;
    private IdempotencyKey conflictKey;
    private IdempotencyKey rawReplayKey;
    private IdempotencyKey rawConflictKey;
    private byte[] adapterOutcome;
    private IdempotencyKey adapterReplayKey;

    /**
     * Starts the backend, builds the engine, and prepares one completed key and one key held
     * under a live lease, for the engine and for the baseline.
     */
    @Setup
    public void setUp() throws JsonProcessingException {
        env = Environment.open(backend, LEASE, TTL, false);
        engine = IdempotencyEngine.builder().store(env.store()).lease(LEASE).ttl(TTL).build();
        raw = env.raw();
        scope = "bench-" + UUID.randomUUID();
        // The engine's own fingerprint of the request, so the held key is a true duplicate
        // (another fingerprint would be a 422, not a 409).
        byte[] fingerprint = RecordFormat.of(new ObjectMapper()).fingerprint(OPERATION, Documents.PAYMENT);
        rawFingerprint = fingerprint.clone();
        rawOutcome = new ObjectMapper().writeValueAsBytes(Receipt.OK);

        replayKey = key("replay");
        engine.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
        nearCached = IdempotencyEngine.builder().store(env.store()).lease(LEASE).ttl(TTL).nearCache(1024).build();
        // The first replay through it fills its cache; the measured ones are served from there.
        check(nearCached.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK).replayed(), "not a replay");
        conflictKey = key("conflict");
        // A holder that never finishes within the run: its lease outlives any trial.
        env.store().claim(conflictKey, fingerprint, 42, Duration.ofHours(1), TTL);

        adapterOutcome = RecordFormat.of(new ObjectMapper()).encodeSuccess(Receipt.OK);
        adapterReplayKey = key("adapter-replay");
        check(env.store().claim(adapterReplayKey, fingerprint, 5, LEASE, TTL).claimed(), "adapter replay key was not free");
        check(env.store().complete(adapterReplayKey, 5, adapterOutcome, TTL), "adapter replay key did not complete");

        rawReplayKey = key("raw-replay");
        check(raw.claim(rawReplayKey, rawFingerprint, 7) == null, "raw replay key was not free");
        check(raw.complete(rawReplayKey, 7, rawOutcome), "raw replay key did not complete");
        rawConflictKey = key("raw-conflict");
        check(raw.claim(rawConflictKey, rawFingerprint, 9) == null, "raw conflict key was not free");
    }

    /** Closes the clients (the servers go with the JVM). */
    @TearDown
    public void tearDown() {
        env.close();
    }

    /** Engine: a new key; claim, run the work, complete. */
    @Benchmark
    public Result<Receipt> engineFirst() {
        return engine.execute(next(), Documents.PAYMENT, Receipt.class, WORK);
    }

    /** Baseline: a new key; raw claim, then raw fenced completion. */
    @Benchmark
    public boolean rawFirst() {
        IdempotencyKey key = next();
        long token = ThreadLocalRandom.current().nextLong();
        check(raw.claim(key, rawFingerprint, token) == null, "fresh key was taken");
        return raw.complete(key, token, rawOutcome);
    }

    /**
     * The store adapter alone: a new key claimed and completed through the SPI, with the
     * fingerprint and the encoded outcome the engine would pass (made once, in the setup).
     */
    @Benchmark
    public boolean adapterFirst() {
        IdempotencyKey key = next();
        long token = ThreadLocalRandom.current().nextLong();
        check(env.store().claim(key, rawFingerprint, token, LEASE, TTL).claimed(), "fresh key was taken");
        return env.store().complete(key, token, adapterOutcome, TTL);
    }

    /** The store adapter alone: a claim through the SPI that finds the completed record. */
    @Benchmark
    public ClaimResult adapterReplay() {
        return env.store().claim(adapterReplayKey, rawFingerprint, ThreadLocalRandom.current().nextLong(), LEASE, TTL);
    }

    /** Engine: a duplicate of a completed call, replayed from the store. */
    @Benchmark
    public Result<Receipt> engineReplay() {
        return engine.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
    }

    /**
     * Engine with its near cache on ({@code nearCache(1024)}): a duplicate of a completed call
     * answered from the process-local cache, without a round trip to the store.
     */
    @Benchmark
    public Result<Receipt> nearCacheReplay() {
        return nearCached.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
    }

    /** Baseline: a raw claim that finds the completed record and returns it. */
    @Benchmark
    public Object rawReplay() {
        return raw.claim(rawReplayKey, rawFingerprint, ThreadLocalRandom.current().nextLong());
    }

    /** Engine: a duplicate while the first call still holds its lease (fail fast, 409). */
    @Benchmark
    public Object engineConflict() {
        try {
            engine.execute(conflictKey, Documents.PAYMENT, Receipt.class, WORK);
        } catch (RequestInProgressException expected) {
            return expected;
        }
        throw new IllegalStateException("the held key " + conflictKey + " was not in progress");
    }

    /** Baseline: a raw claim that finds the in-progress record and returns it. */
    @Benchmark
    public Object rawConflict() {
        return raw.claim(rawConflictKey, rawFingerprint, ThreadLocalRandom.current().nextLong());
    }

    private IdempotencyKey next() {
        return key("k" + sequence.incrementAndGet());
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, OPERATION, k);
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
