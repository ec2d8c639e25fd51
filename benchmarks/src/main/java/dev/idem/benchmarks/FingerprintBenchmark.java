package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.CanonicalJson;
import dev.idem.engine.RecordFormat;
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
 *
 * <p>The public {@link CanonicalJson} API is measured the way an application hashes with it:
 * {@code canonicalString} takes the canonical {@code String} and hashes its UTF-8 bytes,
 * {@code canonicalBytes} hashes the canonical bytes of UTF-8 input, and {@code sha256String} /
 * {@code sha256Bytes} use {@link CanonicalJson#sha256(String)}, which hashes the canonical form
 * as it is made.
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
    private RecordFormat format;
    private MessageDigest sha;

    private static final MessageDigest SHA256 = newSha256();

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** Builds the document and the engine's fingerprinter. */
    @Setup
    public void setUp() {
        json = Documents.ofSize(size);
        bytes = json.getBytes(StandardCharsets.UTF_8);
        mapper = new ObjectMapper();
        format = RecordFormat.of(mapper);
        sha = sha256Digest();
    }

    /** Public API: the canonical {@code String} of the text, then SHA-256 of its UTF-8 bytes. */
    @Benchmark
    public byte[] canonicalString() {
        return sha.digest(CanonicalJson.canonicalize(json).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Public API: the canonical {@code String} of the text alone, against {@link #jacksonText}
     * (text in, text out on both sides, nothing hashed).
     */
    @Benchmark
    public String canonicalText() {
        return CanonicalJson.canonicalize(json);
    }

    /**
     * Public API: the canonical UTF-8 of the text, without making a {@code String} of it: with
     * {@link #canonicalText}, what the decode of the canonical UTF-8 into a {@code String} costs.
     */
    @Benchmark
    public byte[] canonicalTextUtf8() {
        return CanonicalJson.canonicalizeToUtf8(json);
    }

    /** Baseline for {@link #canonicalText}: Jackson parses the text to a tree and writes it back as text. */
    @Benchmark
    public String jacksonText() throws IOException {
        return mapper.writeValueAsString(mapper.readTree(json));
    }

    /** Public API: the canonical UTF-8 bytes of UTF-8 input, then their SHA-256. */
    @Benchmark
    public byte[] canonicalBytes() {
        return sha.digest(CanonicalJson.canonicalize(bytes));
    }

    /** Public API: {@link CanonicalJson#sha256(String)}, the canonical text hashed as it is made. */
    @Benchmark
    public byte[] sha256String() {
        return CanonicalJson.sha256(json);
    }

    /** Public API: {@link CanonicalJson#sha256(byte[])} of UTF-8 input. */
    @Benchmark
    public byte[] sha256Bytes() {
        return CanonicalJson.sha256(bytes);
    }

    /** The engine's fingerprint of the request. */
    @Benchmark
    public byte[] fingerprint() {
        return format.fingerprint("charge", json);
    }

    /** Baseline: SHA-256 of the raw UTF-8 bytes. */
    @Benchmark
    public byte[] sha256() {
        return sha256Digest().digest(bytes);
    }

    /** Baseline: Jackson parse to a tree and write it back to bytes. */
    @Benchmark
    public byte[] jacksonRoundTrip() throws IOException {
        return mapper.writeValueAsBytes(mapper.readTree(json));
    }

    /** A fresh SHA-256 digest, cloned from a prototype as the engine takes its own (no provider lookup per call). */
    private static MessageDigest sha256Digest() {
        try {
            return (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The document's size in bytes (for tests and the report). */
    public int documentBytes() {
        return bytes.length;
    }
}
