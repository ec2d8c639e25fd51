package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.engine.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Keeps the benchmarks from rotting: every benchmark's setup and one invocation of each
 * method on the cheap backends (the embedded PostgreSQL and MariaDB are left to
 * {@code benchmarks/run}), checked for the outcome the benchmark claims to measure, plus
 * one real JMH run of one iteration.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BenchmarkSmokeTest {

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"MEMORY", "H2", "REDIS", "DYNAMODB"})
    void everyStoreBenchmarkMeasuresWhatItSays(Backend backend) throws Exception {
        StoreBenchmark b = new StoreBenchmark();
        b.backend = backend;
        b.setUp();
        try {
            Result<Receipt> first = b.engineFirst();
            assertThat(first.replayed()).isFalse();
            assertThat(first.stored()).isTrue();
            assertThat(first.value()).isEqualTo(Receipt.OK);
            assertThat(b.rawFirst()).isTrue();

            Result<Receipt> replay = b.engineReplay();
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(Receipt.OK);
            assertThat(b.rawReplay()).isNotNull();

            assertThat(b.engineConflict()).isInstanceOf(RequestInProgressException.class);
            assertThat(b.rawConflict()).isNotNull();

            // The adapter rows ask the store what the engine asks; the near cache replays.
            assertThat(b.adapterFirst()).isTrue();
            ClaimResult adapterReplay = b.adapterReplay();
            assertThat(adapterReplay.status()).isEqualTo(ClaimResult.Status.EXISTING);
            assertThat(adapterReplay.record().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(adapterReplay.record().outcome()).isNotEmpty();
            Result<Receipt> cached = b.nearCacheReplay();
            assertThat(cached.replayed()).isTrue();
            assertThat(cached.value()).isEqualTo(Receipt.OK);
        } finally {
            b.tearDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"MEMORY", "H2", "REDIS", "DYNAMODB"})
    void everyStepCostsOneJournalWrite(Backend backend) {
        StepBenchmark b = new StepBenchmark();
        b.backend = backend;
        b.countTrips = true;
        b.setUp();
        try {
            // The first call of each kind loads the Redis scripts (NOSCRIPT, then a load): not counted.
            b.threeSteps();
            long before = b.trips();
            assertFirstExecution(b.plainExecution());
            long plain = b.trips() - before;
            before = b.trips();
            assertFirstExecution(b.oneStep());
            long oneStep = b.trips() - before;
            before = b.trips();
            assertFirstExecution(b.threeSteps());
            long threeSteps = b.trips() - before;

            assertThat(plain).isPositive();
            assertThat(oneStep - plain).as("round trips a step adds").isEqualTo(1);
            assertThat(threeSteps - plain).as("round trips three steps add").isEqualTo(3);
        } finally {
            b.tearDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"MEMORY", "REDIS"})
    void aStartMarkerCostsOneJournalWrite(Backend backend) {
        AtMostOnceStepBenchmark b = new AtMostOnceStepBenchmark();
        b.backend = backend;
        b.countTrips = true;
        b.setUp();
        try {
            // The first call of each kind loads the Redis scripts (NOSCRIPT, then a load): not counted.
            b.atMostOnceStep();
            long before = b.trips();
            assertFirstExecution(b.plainStep());
            long plain = b.trips() - before;
            before = b.trips();
            assertFirstExecution(b.atMostOnceStep());
            long atMostOnce = b.trips() - before;

            assertThat(plain).isPositive();
            assertThat(atMostOnce - plain).as("round trips the start marker adds").isEqualTo(1);
        } finally {
            b.tearDown();
        }
    }

    private static void assertFirstExecution(Result<Receipt> r) {
        assertThat(r.replayed()).isFalse();
        assertThat(r.stored()).isTrue();
        assertThat(r.value()).isEqualTo(Receipt.OK);
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 1024, 10240, 102400})
    void fingerprintBenchmarksHashTheDocumentOfTheStatedSize(int size) throws Exception {
        FingerprintBenchmark b = new FingerprintBenchmark();
        b.size = size;
        b.setUp();
        assertThat(b.documentBytes()).isEqualTo(size);
        assertThat(b.fingerprint()).hasSize(32);
        assertThat(b.sha256()).hasSize(32).isNotEqualTo(b.fingerprint());
        // The four public-API rows hash the same canonical text.
        assertThat(b.canonicalString()).hasSize(32).isEqualTo(b.canonicalBytes()).isEqualTo(b.sha256String())
                .isEqualTo(b.sha256Bytes());
        ObjectMapper mapper = new ObjectMapper();
        String document = Documents.ofSize(size);
        assertThat(mapper.readTree(b.jacksonRoundTrip())).isEqualTo(mapper.readTree(document));
        // The text pair: the same value out of both (by canonical form), the canonical one already canonical.
        String canonical = b.canonicalText();
        assertThat(dev.idem.engine.CanonicalJson.canonicalize(b.jacksonText())).isEqualTo(canonical)
                .isEqualTo(dev.idem.engine.CanonicalJson.canonicalize(document))
                .isEqualTo(dev.idem.engine.CanonicalJson.canonicalize(canonical));
        assertThat(new String(b.canonicalTextUtf8(), StandardCharsets.UTF_8)).isEqualTo(canonical);
    }

    @Test
    void theStoreRequestIsAboutTwoHundredBytes() {
        assertThat(Documents.PAYMENT.getBytes(StandardCharsets.UTF_8).length).isBetween(180, 230);
    }

    @ParameterizedTest
    @EnumSource(ProtectionBenchmark.Protection.class)
    void protectionBenchmarkRunsFirstExecutionsAndReplaysOfTheStatedSize(ProtectionBenchmark.Protection protection) {
        for (int size : new int[] {200, 10240}) {
            ProtectionBenchmark b = new ProtectionBenchmark();
            b.protection = protection;
            b.outcomeBytes = size;
            b.setUp();
            assertThat(dev.idem.engine.RecordFormat.of(new ObjectMapper())
                    .encodeSuccess(ProtectionBenchmark.payloadOf(size))).hasSize(size);
            for (int i = 0; i < ProtectionBenchmark.KEYS + 2; i++) {
                Result<ProtectionBenchmark.Payload> first = b.firstExecution();
                assertThat(first.replayed()).isFalse();
                assertThat(first.stored()).isTrue();
            }
            Result<ProtectionBenchmark.Payload> replay = b.replay();
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(ProtectionBenchmark.payloadOf(size));
            byte[] sealed = b.sealOutcome();
            assertThat(sealed.length).isEqualTo(protection == ProtectionBenchmark.Protection.NONE ? size
                    : size + 3 + "bench-outcomes".length() + 16 + 12 + 4 + 4 + 16);
            assertThat(b.openOutcome()).hasSize(size);
        }
    }

    @ParameterizedTest
    @EnumSource(PairedStoreBenchmark.Path.class)
    void thePairedBenchmarkTimesEachOfTheThreeCallsInTurn(PairedStoreBenchmark.Path path) throws Exception {
        PairedStoreBenchmark b = new PairedStoreBenchmark();
        b.backend = Backend.REDIS;
        b.path = path;
        b.setUp();
        try {
            PairedStoreBenchmark.Split split = new PairedStoreBenchmark.Split();
            split.reset();
            for (int i = 0; i < 6; i++) {
                assertThat(b.threeCalls(split)).isNotNull();
            }
            assertThat(split.calls).isEqualTo(6);
            assertThat(split.engineNanos).isPositive();
            assertThat(split.adapterNanos).isPositive();
            assertThat(split.rawNanos).isPositive();
            assertThat(split.engineCpuNanos + split.adapterCpuNanos + split.rawCpuNanos).isPositive();
            // Each of the three made its own call of the path: the engine's first execution is
            // stored and its replay replayed.
            Result<?> engine = (Result<?>) b.call(0);
            assertThat(engine.replayed()).isEqualTo(path == PairedStoreBenchmark.Path.REPLAY);
            assertThat(engine.value()).isEqualTo(Receipt.OK);
            if (path == PairedStoreBenchmark.Path.REPLAY) {
                assertThat(((ClaimResult) b.call(1)).status()).isEqualTo(ClaimResult.Status.EXISTING);
            } else {
                assertThat(b.call(1)).isEqualTo(true);
                assertThat(b.call(2)).isEqualTo(true);
            }
        } finally {
            b.tearDown();
        }
    }

    @Test
    void memoryReplayBenchmarkReplays() {
        MemoryReplayBenchmark b = new MemoryReplayBenchmark();
        b.setUp();
        Result<Receipt> r = b.replay();
        assertThat(r.replayed()).isTrue();
        assertThat(r.value()).isEqualTo(Receipt.OK);
        assertThat(b.fingerprintAlone()).hasSize(32);
        assertThat(b.decodeAlone()).isEqualTo(Receipt.OK);
        assertThat(b.replayAndRead()).isEqualTo(Receipt.OK);
    }

    // The trial's single-threaded warm-up (200,000 calls of each path) and one-second lease are for
    // real runs: here a thousand calls and a minute, so the smoke runs stay within their time limit
    // on a loaded machine and a cold first call keeps its lease. Set before ScalingBenchmark loads.
    @BeforeAll
    static void shortWarmUp() {
        System.setProperty(ScalingBenchmark.WARMUP_CALLS_PROPERTY, "1000");
        System.setProperty(ScalingBenchmark.LEASE_MS_PROPERTY, "60000");
    }

    @AfterAll
    static void defaultWarmUp() {
        System.clearProperty(ScalingBenchmark.WARMUP_CALLS_PROPERTY);
        System.clearProperty(ScalingBenchmark.LEASE_MS_PROPERTY);
    }

    @Test
    void oneIterationOfTheScalingBenchmarksRunsOnTwoThreadsWithTheirOwnKeys() throws Exception {
        Options options = new OptionsBuilder()
                .include(ScalingBenchmark.class.getName())
                .threads(2)
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).extracting(r -> r.getParams().getBenchmark().replaceAll(".*\\.", ""))
                .containsExactlyInAnyOrder("storeFirst", "storeReplay", "engineFirst", "engineReplay");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getScore()).isPositive());
    }

    @Test
    void oneIterationOfTheHotKeyBenchmarkRunsBothGroupsOnEightThreads() throws Exception {
        Options options = new OptionsBuilder()
                .include(HotKeyBenchmark.class.getName())
                .param("waiting", "6")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(300))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(1);
        RunResult result = results.iterator().next();
        assertThat(result.getSecondaryResults()).containsKeys("otherKeys", "hotKeyDuplicate");
        assertThat(result.getSecondaryResults().get("otherKeys").getScore()).isPositive();
    }

    @Test
    void oneIterationOfAContentionBenchmarkRunsUnderJmhAndReportsTheLosers(@TempDir Path dir) throws Exception {
        String before = System.getProperty(ContentionBenchmark.RESULTS_PROPERTY);
        System.setProperty(ContentionBenchmark.RESULTS_PROPERTY, dir.toString());
        try {
            Options options = new OptionsBuilder()
                    .include(ContentionBenchmark.class.getName() + ".execute$")
                    .param("backend", "MEMORY")
                    .param("keys", "ONE")
                    .threads(2)
                    .forks(0)
                    .warmupIterations(0)
                    .measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(300))
                    .shouldFailOnError(true)
                    .build();
            Collection<RunResult> results = new Runner(options).run();
            assertThat(results).hasSize(1);
            RunResult result = results.iterator().next();
            assertThat(result.getPrimaryResult().getScore()).isPositive();
            assertThat(result.getSecondaryResults()).containsKeys("wins", "losses");
            double wins = result.getSecondaryResults().get("wins").getScore();
            double losses = result.getSecondaryResults().get("losses").getScore();
            assertThat(wins).isPositive();
            // Counted in the measured window only, so they add up to the primary rate.
            assertThat(wins + losses).isCloseTo(result.getPrimaryResult().getScore(),
                    org.assertj.core.data.Percentage.withPercentage(5));

            Path file = dir.resolve("contention-memory-one-t2.json");
            assertThat(file).exists();
            var report = new ObjectMapper().readTree(Files.readString(file));
            assertThat(report.get("threads").asInt()).isEqualTo(2);
            assertThat(report.get("wins").asLong()).isPositive();
        } finally {
            if (before == null) {
                System.clearProperty(ContentionBenchmark.RESULTS_PROPERTY);
            } else {
                System.setProperty(ContentionBenchmark.RESULTS_PROPERTY, before);
            }
        }
    }
}
