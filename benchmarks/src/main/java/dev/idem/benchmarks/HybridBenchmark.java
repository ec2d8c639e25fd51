package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.internal.HybridEnvironment;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.time.Duration;
import java.util.UUID;
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
 * The hybrid store (Redis gate, PostgreSQL truth) against Redis alone and PostgreSQL alone, for
 * the engine's three paths: a replay of a completed key (the gate already knows it), a first
 * execution (claim, empty work, complete), and a duplicate of work in progress (fail-fast 409).
 * Average time per call. The targets: a hybrid replay within 10% of Redis alone; a hybrid first
 * execution one Redis round trip per store operation over PostgreSQL alone (the counts are
 * asserted by {@code HybridRoundTripsTest}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HybridBenchmark {
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    /** The store under test. */
    @Param({"HYBRID", "REDIS", "POSTGRES"})
    public HybridEnvironment.Kind store;

    private HybridEnvironment env;
    private IdempotencyEngine engine;
    private String scope;
    private final AtomicLong sequence = new AtomicLong();
    private IdempotencyKey replayKey;
    private IdempotencyKey conflictKey;

    /** Starts the servers, builds the engine, and prepares a completed key (known to the gate) and a held one. */
    @Setup
    public void setUp() {
        env = HybridEnvironment.open(store, false);
        engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL)
                .build();
        scope = "hybrid-bench-" + UUID.randomUUID();
        replayKey = key("replay");
        engine.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
        // The first replay teaches the gate the completion; every measured one is the steady state.
        engine.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
        conflictKey = key("conflict");
        // A holder that never finishes within the run, with the engine's own fingerprint of the
        // request, so the duplicate is a 409 and not a 422.
        byte[] fingerprint = RecordFormat.of(new ObjectMapper()).fingerprint(StoreBenchmark.OPERATION, Documents.PAYMENT);
        env.store().claim(conflictKey, fingerprint, 42, Duration.ofHours(1), StoreBenchmark.TTL);
    }

    /** Closes the clients (the servers go with the JVM). */
    @TearDown
    public void tearDown() {
        env.close();
    }

    /** A duplicate of a completed call. */
    @Benchmark
    public Result<Receipt> replay() {
        return engine.execute(replayKey, Documents.PAYMENT, Receipt.class, WORK);
    }

    /** A new key: claim, run the (empty) work, complete. */
    @Benchmark
    public Result<Receipt> first() {
        return engine.execute(key("k" + sequence.incrementAndGet()), Documents.PAYMENT, Receipt.class, WORK);
    }

    /** A duplicate while the first call still holds its lease (fail fast, 409). */
    @Benchmark
    public Object conflict() {
        try {
            engine.execute(conflictKey, Documents.PAYMENT, Receipt.class, WORK);
        } catch (RequestInProgressException expected) {
            return expected;
        }
        throw new IllegalStateException("the held key " + conflictKey + " was not in progress");
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, StoreBenchmark.OPERATION, k);
    }
}
