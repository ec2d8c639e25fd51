package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
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
 * What protecting stored records adds to a call: the engine on the memory store (so the
 * store costs next to nothing and the difference is the engine's own) with nothing protected,
 * with outcomes encrypted (AES-256-GCM, a key derived per write), and with fingerprints keyed
 * too (HMAC-SHA-256), for a first execution and a replay, at outcomes of about 200 bytes and
 * 10 KiB (the encoded result, before encryption). The request is {@link Documents#PAYMENT}.
 *
 * <p>First executions cycle through {@value #KEYS} keys, moving the store's clock past the TTL
 * at each wrap, so every claim finds an expired record (a first execution to the engine) and the
 * store's memory stays bounded whatever the outcome size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProtectionBenchmark {
    static final int KEYS = 1024;
    private static final Duration TTL = Duration.ofHours(1);

    /** What is protected. */
    public enum Protection {
        /** Nothing: outcomes in clear, plain SHA-256 fingerprints. */
        NONE,
        /** Outcomes and journals encrypted. */
        ENCRYPTED,
        /** Outcomes encrypted and fingerprints keyed. */
        ENCRYPTED_KEYED
    }

    /** The protection under test. */
    @Param({"NONE", "ENCRYPTED", "ENCRYPTED_KEYED"})
    public Protection protection;

    /** The size of the encoded outcome (kind byte and JSON), in bytes. */
    @Param({"200", "10240"})
    public int outcomeBytes;

    /** The result: an id and a filler sized so that the encoded outcome has {@link #outcomeBytes}. */
    public record Payload(String id, String data) {
    }

    private static final IdempotencyKey SEALED_KEY = IdempotencyKey.of("bench", StoreBenchmark.OPERATION, "sealed");
    private static final byte[] SEALED_FINGERPRINT = new byte[32];

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private RecordFormat sealer;
    private byte[] plainOutcome;
    private byte[] sealedOutcome;
    private IdempotencyEngine engine;
    private IdempotencyKey[] keys;
    private IdempotencyKey replayKey;
    private Work<Payload> work;
    private int next;

    /** Builds the engine, sizes the payload, and completes the replayed key once. */
    @Setup
    public void setUp() {
        IdempotencyEngineBuilder b = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.builder().clock(clock).build())
                .lease(Duration.ofSeconds(30)).ttl(TTL);
        if (protection != Protection.NONE) {
            b.encryptOutcomes(KeyRing.of(key("bench-outcomes", 1)));
        }
        if (protection == Protection.ENCRYPTED_KEYED) {
            b.keyedFingerprints(KeyRing.of(key("bench-fingerprints", 2)));
        }
        engine = b.build();
        Payload payload = payloadOf(outcomeBytes);
        sealer = RecordFormat.of(new ObjectMapper())
                .withOutcomeKeys(protection == Protection.NONE ? null : KeyRing.of(key("bench-outcomes", 1)));
        plainOutcome = sealer.encodeSuccess(payload);
        sealedOutcome = sealOutcome();
        work = ctx -> payload;
        keys = new IdempotencyKey[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = IdempotencyKey.of("bench", StoreBenchmark.OPERATION, "first-" + i);
        }
        replayKey = IdempotencyKey.of("bench", StoreBenchmark.OPERATION, "replay");
        // Lives through the clock steps of first executions (should both run on one instance).
        engine.execute(replayKey, Documents.PAYMENT, Payload.class,
                CallOptions.builder().ttl(IdempotencyEngine.MAX_DURATION).build(), work);
    }

    private static KeyVersion key(String id, int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return KeyVersion.of(id, secret);
    }

    /** A payload whose encoded outcome is exactly {@code bytes} long. */
    static Payload payloadOf(int bytes) {
        RecordFormat codec = RecordFormat.of(new ObjectMapper());
        int overhead = codec.encodeSuccess(new Payload("pay_3PZx8f2eZvKYlo2C", "")).length;
        return new Payload("pay_3PZx8f2eZvKYlo2C", "x".repeat(Math.max(0, bytes - overhead)));
    }

    /** A first execution: the key's last record has expired, so the claim wins and the work runs. */
    @Benchmark
    public Result<Payload> firstExecution() {
        int i = next++ & (KEYS - 1);
        if (i == 0) {
            clock.advance(TTL.plusSeconds(1));
        }
        return engine.execute(keys[i], Documents.PAYMENT, Payload.class, work);
    }

    /** A replay of the completed key. */
    @Benchmark
    public Result<Payload> replay() {
        return engine.execute(replayKey, Documents.PAYMENT, Payload.class, work);
    }

    /** Encrypting one outcome alone, as a first execution does (nothing when unprotected). */
    @Benchmark
    public byte[] sealOutcome() {
        return sealer.sealOutcome(SEALED_KEY, SEALED_FINGERPRINT, plainOutcome);
    }

    /** Decrypting one outcome alone, as a replay does (nothing when unprotected). */
    @Benchmark
    public byte[] openOutcome() {
        return sealer.openOutcome(SEALED_KEY, SEALED_FINGERPRINT, sealedOutcome);
    }
}
