package dev.idem.benchmarks;

import dev.idem.engine.CanonicalJson;
import java.nio.charset.StandardCharsets;
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
 * Canonicalization cost against nesting depth at a fixed size: one ~900 KB document spread
 * over a chain of {@code depth} nested objects. A canonicalizer that re-copies each object's
 * content when it sorts the members costs depth x size; ours is linear, so the time per
 * document should stay flat from depth 1 to 990 (the parser allows 1000).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CanonicalDepthBenchmark {
    /** Nesting depth of the document. */
    @Param({"1", "10", "100", "500", "990"})
    public int depth;

    /** Document size in UTF-8 bytes (about). */
    @Param({"900000"})
    public int size;

    private byte[] json;

    /** Builds the document. */
    @Setup
    public void setUp() {
        json = Documents.nested(size, depth).getBytes(StandardCharsets.UTF_8);
    }

    /** Canonical bytes of the whole document. */
    @Benchmark
    public byte[] canonicalize() {
        return CanonicalJson.canonicalize(json);
    }

    /** The document's size in bytes (for tests and the report). */
    public int documentBytes() {
        return json.length;
    }
}
