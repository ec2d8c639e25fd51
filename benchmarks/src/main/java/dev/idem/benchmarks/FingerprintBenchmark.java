package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.json.PointerSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The request fingerprint (RFC 8785 canonicalization + SHA-256, exactly the engine's code
 * path for a JSON text request) side by side with two baselines on the same document:
 * SHA-256 of the raw bytes (the floor: hashing without understanding JSON) and Jackson
 * {@code readTree} + {@code writeValueAsBytes} (what "parse and re-serialize" costs with
 * the JSON library everyone already has). Throughput in documents per second; the report
 * turns it into MB/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FingerprintBenchmark {
    /** Document size in UTF-8 bytes. */
    @Param({"100", "1024", "10240", "102400"})
    public int size;

    private String json;
    private byte[] bytes;
    private ObjectMapper mapper;
    private Fingerprinter fingerprinter;

    /** Builds the document and the engine's fingerprinter. */
    @Setup
    public void setUp() {
        json = Documents.ofSize(size);
        bytes = json.getBytes(StandardCharsets.UTF_8);
        mapper = new ObjectMapper();
        fingerprinter = new Fingerprinter(mapper, 1024 * 1024, PointerSet.EMPTY);
    }

    /** The engine's fingerprint of the request. */
    @Benchmark
    public byte[] fingerprint() {
        return fingerprinter.fingerprint("charge", json, PointerSet.EMPTY);
    }

    /** Baseline: SHA-256 of the raw UTF-8 bytes. */
    @Benchmark
    public byte[] sha256() {
        return Fingerprinter.sha256().digest(bytes);
    }

    /** Baseline: Jackson parse to a tree and write it back to bytes. */
    @Benchmark
    public byte[] jacksonRoundTrip() throws IOException {
        return mapper.writeValueAsBytes(mapper.readTree(json));
    }

    /** The document's size in bytes (for tests and the report). */
    public int documentBytes() {
        return bytes.length;
    }
}
