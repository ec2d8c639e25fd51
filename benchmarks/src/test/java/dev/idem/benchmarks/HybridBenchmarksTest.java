package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.HybridRoundTrips.Counts;
import dev.idem.benchmarks.HybridRoundTrips.Trips;
import dev.idem.benchmarks.internal.HybridEnvironment.Kind;
import dev.idem.benchmarks.internal.Servers;
import dev.idem.engine.Result;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hybrid store's benchmarks measure what they say, and its targets hold, counted (not
 * timed) on real servers: a replay or a duplicate of work in progress costs one Redis round trip
 * and no database statement once the gate knows the key; a first execution costs the database's
 * two statements plus one Redis round trip per store operation; in a storm of 100 duplicates of
 * each of 100 keys (20 here), no duplicate reaches the database (PostgreSQL alone: one statement each).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HybridBenchmarksTest {

    /** One PostgreSQL and one Redis for the whole class (each environment would start and stop its own). */
    @BeforeAll
    static void keepServersUp() {
        Servers.acquirePostgres();
        Servers.acquireRedis();
    }

    @AfterAll
    static void releaseServers() {
        Servers.releaseRedis();
        Servers.releasePostgres();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyHybridBenchmarkMeasuresWhatItSays(Kind kind) {
        HybridBenchmark b = new HybridBenchmark();
        b.store = kind;
        b.setUp();
        try {
            Result<Receipt> first = b.first();
            assertThat(first.replayed()).isFalse();
            assertThat(first.value()).isEqualTo(Receipt.OK);
            Result<Receipt> replay = b.replay();
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(Receipt.OK);
            assertThat(b.conflict()).isInstanceOf(RequestInProgressException.class);
        } finally {
            b.tearDown();
        }
    }

    @Test
    void theHybridStoreAddsOneRedisRoundTripPerOperationAndAnswersDuplicatesWithoutTheDatabase() {
        Counts hybrid = HybridRoundTrips.measure(Kind.HYBRID);
        Counts postgres = HybridRoundTrips.measure(Kind.POSTGRES);
        Counts redis = HybridRoundTrips.measure(Kind.REDIS);

        assertThat(postgres).isEqualTo(new Counts(new Trips(2, 0), new Trips(1, 0), new Trips(1, 0), new Trips(1, 0)));
        assertThat(redis).isEqualTo(new Counts(new Trips(0, 2), new Trips(0, 1), new Trips(0, 1), new Trips(0, 1)));
        // First execution: the database's two statements, and one Redis round trip each for claim and complete.
        assertThat(hybrid.first()).isEqualTo(new Trips(postgres.first().statements(), 2));
        // The first replay learns the completion from the database; every later one is Redis alone.
        assertThat(hybrid.firstReplay()).isEqualTo(new Trips(1, 2));
        assertThat(hybrid.replay()).isEqualTo(redis.replay());
        assertThat(hybrid.conflict()).isEqualTo(redis.conflict());
    }

    @Test
    void inADuplicateStormNoDuplicateReachesTheDatabaseOnceTheGateKnowsTheKey() {
        // 100 keys as in the benchmark, 20 duplicates each instead of 100 to keep the build short:
        // a count of zero does not depend on how many.
        DuplicateStorm.Counts hybrid = DuplicateStorm.measure(Kind.HYBRID, 100, 20, 16);
        assertThat(hybrid.inFlight()).as("statements for 2,000 duplicates of work in progress").isZero();
        assertThat(hybrid.teach()).as("one first replay per key").isEqualTo(100);
        assertThat(hybrid.replays()).as("statements for 2,000 later duplicates").isZero();

        DuplicateStorm.Counts postgres = DuplicateStorm.measure(Kind.POSTGRES, 100, 10, 16);
        assertThat(postgres.perInFlightDuplicate()).isEqualTo(1.0);
        assertThat(postgres.perReplayedDuplicate()).isEqualTo(1.0);
    }
}
