package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The floor of a replay: the engine replaying a completed ~200-byte request from the
 * in-memory store, against fingerprinting the same request alone (which every replay must
 * do) and decoding the stored result alone (which every replay must do too: Jackson reads
 * the ~70-byte {@link Receipt}). The goal is replay within 1.2x of the fingerprint.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MemoryReplayBenchmark {
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    private IdempotencyEngine engine;
    private IdempotencyKey key;
    private RecordFormat format;
    private JavaType receipt;
    private byte[] outcome;

    /** Completes the key once, so every measured call is a replay. */
    @Setup
    public void setUp() {
        engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL).build();
        key = IdempotencyKey.of("bench", StoreBenchmark.OPERATION, "replay");
        engine.execute(key, Documents.PAYMENT, Receipt.class, WORK);
        format = RecordFormat.of(new ObjectMapper());
        receipt = format.type(Receipt.class);
        outcome = format.encodeSuccess(Receipt.OK);
    }

    /**
     * A full replay through the engine, as a caller that forwards the result or only needs to
     * know it was answered: the stored outcome is decoded only when the value is read.
     */
    @Benchmark
    public Result<Receipt> replay() {
        return engine.execute(key, Documents.PAYMENT, Receipt.class, WORK);
    }

    /** A full replay through the engine whose value is read: the replay plus decoding the stored result. */
    @Benchmark
    public Receipt replayAndRead() {
        return engine.execute(key, Documents.PAYMENT, Receipt.class, WORK).value();
    }

    /** Decoding the stored result, nothing else (the engine's codec, as a replay does). */
    @Benchmark
    public Object decodeAlone() {
        return format.decodeSuccess(outcome, receipt);
    }

    /** The fingerprint of the same request, nothing else. */
    @Benchmark
    public byte[] fingerprintAlone() {
        return format.fingerprint(StoreBenchmark.OPERATION, Documents.PAYMENT);
    }
}
