package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Claims racing at the database: released together by a barrier, on two pools, many
 * claimants of one key get exactly one winner (a fresh insert or a takeover of a lapsed
 * lease) and every loser sees the winner's record; claimants of distinct new keys never
 * block or fail each other (no gap-lock deadlocks on MySQL/MariaDB).
 */
@Timeout(120)
class ClaimRaceTest {
    private static final int THREADS = 12;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {7, 7};

    private final String scope = "race-" + UUID.randomUUID();

    @ParameterizedTest
    @EnumSource(Backend.class)
    void manyClaimantsOfANewKeyHaveExactlyOneWinner(Backend backend) throws Exception {
        for (int round = 0; round < 10; round++) {
            IdempotencyKey key = IdempotencyKey.of(scope, "op", "new-" + round);
            List<ClaimResult> results = race(backend, THREADS, i -> key, LEASE);
            assertOneWinner(results, ClaimResult.Status.ACQUIRED, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void manyClaimantsOfALapsedLeaseHaveExactlyOneTakeover(Backend backend) throws Exception {
        List<IdempotencyKey> keys = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            IdempotencyKey key = IdempotencyKey.of(scope, "op", "lapsed-" + round);
            assertThat(backend.store().claim(key, FP, -1L, Duration.ofMillis(150), TTL).claimed()).isTrue();
            keys.add(key);
        }
        Thread.sleep(300);
        for (IdempotencyKey key : keys) {
            List<ClaimResult> results = race(backend, THREADS, i -> key, LEASE);
            assertOneWinner(results, ClaimResult.Status.TAKEN_OVER, 2);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void claimantsOfDistinctNewKeysAllAcquire(Backend backend) throws Exception {
        for (int round = 0; round < 10; round++) {
            String prefix = "distinct-" + round + "-";
            List<ClaimResult> results = race(backend, THREADS, i -> IdempotencyKey.of(scope, "op", prefix + i), LEASE);
            assertThat(results).allSatisfy(r -> assertThat(r.status()).isEqualTo(ClaimResult.Status.ACQUIRED));
        }
    }

    private static void assertOneWinner(List<ClaimResult> results, ClaimResult.Status winning, int attempt) {
        List<ClaimResult> winners = results.stream().filter(ClaimResult::claimed).toList();
        assertThat(winners).hasSize(1);
        ClaimResult winner = winners.get(0);
        assertThat(winner.status()).isEqualTo(winning);
        assertThat(winner.record().attempt()).isEqualTo(attempt);
        for (ClaimResult r : results) {
            if (r != winner) {
                assertThat(r.status()).isEqualTo(ClaimResult.Status.EXISTING);
                assertThat(r.record().fencingToken()).isEqualTo(winner.record().fencingToken());
                assertThat(r.record().attempt()).isEqualTo(attempt);
            }
        }
    }

    private interface KeyOf {
        IdempotencyKey key(int claimant);
    }

    private static List<ClaimResult> race(Backend backend, int n, KeyOf keys, Duration lease) throws Exception {
        JdbcIdempotencyStore a = backend.store();
        JdbcIdempotencyStore b = backend.otherStore();
        CyclicBarrier start = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<ClaimResult>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int claimant = i;
                JdbcIdempotencyStore store = i % 2 == 0 ? a : b;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return store.claim(keys.key(claimant), FP, 1_000L + claimant, lease, TTL);
                }));
            }
            List<ClaimResult> results = new ArrayList<>();
            for (Future<ClaimResult> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
