package dev.idem.store.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryStoreExpiryTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

    @Test
    void steadyKeyRateDoesNotGrowMemoryWithoutBound() {
        Duration ttl = Duration.ofSeconds(10);
        int perSecond = 100;
        for (int second = 0; second < 120; second++) {
            for (int i = 0; i < perSecond; i++) {
                IdempotencyKey k = IdempotencyKey.of("s", "op", "k-" + second + "-" + i);
                long token = second * 1000L + i;
                store.claim(k, new byte[] {1}, token, Duration.ofSeconds(1), ttl);
                store.complete(k, token, new byte[] {2}, ttl);
            }
            clock.advance(Duration.ofSeconds(1));
        }
        // Live records span one TTL (1,000); the amortized sweep may lag by a few batches.
        assertThat(store.size()).isLessThan((int) ttl.toSeconds() * perSecond * 2 + MemoryIdempotencyStore.SWEEP_BATCH);
        // Unexpired records are never swept: those written in the last nine seconds are all still held.
        assertThat(store.size()).isGreaterThanOrEqualTo(9 * perSecond);
        assertThat(store.find(IdempotencyKey.of("s", "op", "k-119-99"))).isPresent();
    }

    @Test
    void purgeFreesExpiredRecords() {
        for (int i = 0; i < 10; i++) {
            IdempotencyKey k = IdempotencyKey.of("s", "op", "k" + i);
            store.claim(k, new byte[] {1}, i, Duration.ofSeconds(1), Duration.ofSeconds(5));
        }
        assertThat(store.size()).isEqualTo(10);
        clock.advance(Duration.ofSeconds(6));
        assertThat(store.size()).as("expired but not yet purged").isEqualTo(10);
        assertThat(store.purgeExpired(4)).isEqualTo(4);
        assertThat(store.size()).isEqualTo(6);
        assertThat(store.purgeExpired(100)).isEqualTo(6);
        assertThat(store.size()).isZero();
    }

    // 2 s: every heartbeat moves the record's expiry; 24 h: none does (the lease stays inside the TTL).
    @ParameterizedTest(name = "TTL {0} s")
    @ValueSource(longs = {2, 86_400})
    void aHeartbeatMovesItsRecordsIndexEntryInsteadOfAddingOne(long ttlSeconds) {
        IdempotencyKey k = IdempotencyKey.of("s", "op", "heartbeat");
        store.claim(k, new byte[] {1}, 7, Duration.ofSeconds(1), Duration.ofSeconds(ttlSeconds));
        for (int beat = 0; beat < 200_000; beat++) {
            clock.advance(Duration.ofMillis(100));
            if (store.extendLease(k, 7, Duration.ofSeconds(5)).isEmpty()) {
                throw new AssertionError("heartbeat " + beat + " lost the lease");
            }
        }
        assertThat(store.indexSize()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(ttlSeconds + 5));
        assertThat(store.purgeExpired(10)).isEqualTo(1);
        assertThat(store.size()).isZero();
        assertThat(store.indexSize()).isZero();
    }

    @Test
    void everyRecordHasOneIndexEntryEvenWhenTheyExpireAtTheSameInstant() {
        // Keys that differ only in scope, operation or client key: none may stand for another in the index.
        List<IdempotencyKey> keys = List.of(IdempotencyKey.of("a", "op", "k"), IdempotencyKey.of("b", "op", "k"),
                IdempotencyKey.of("a", "op2", "k"), IdempotencyKey.of("a", "op", "k2"));
        for (IdempotencyKey k : keys) {
            store.claim(k, new byte[] {1}, 1, Duration.ofSeconds(1), Duration.ofSeconds(5));
        }
        assertThat(store.indexSize()).isEqualTo(4);
        for (IdempotencyKey k : keys) {
            store.complete(k, 1, new byte[] {2}, Duration.ofSeconds(10));
        }
        assertThat(store.indexSize()).isEqualTo(4);
        clock.advance(Duration.ofSeconds(6));
        assertThat(store.purgeExpired(10)).as("the claims' expiries moved on with the completes").isZero();
        clock.advance(Duration.ofSeconds(4));
        assertThat(store.purgeExpired(10)).isEqualTo(4);
        assertThat(store.indexSize()).isZero();
    }

    @Test
    void aRecordExpiringWithinAMillisecondIsNotSweptEarlyNorLost() {
        IdempotencyKey k = IdempotencyKey.of("s", "op", "sub-ms");
        store.claim(k, new byte[] {1}, 1, Duration.ofMillis(1), Duration.ofNanos(1_500_000));
        clock.advance(Duration.ofMillis(1));
        assertThat(store.purgeExpired(10)).isZero();
        assertThat(store.find(k)).isPresent();
        clock.advance(Duration.ofMillis(1));
        assertThat(store.purgeExpired(10)).isEqualTo(1);
        assertThat(store.indexSize()).isZero();
    }

    @Test
    void aReclaimedExpiredRecordKeepsOneEntry() {
        IdempotencyKey k = IdempotencyKey.of("s", "op", "again");
        for (int i = 1; i <= 3; i++) {
            store.claim(k, new byte[] {1}, i, Duration.ofSeconds(1), Duration.ofSeconds(2));
            clock.advance(Duration.ofSeconds(3));
        }
        assertThat(store.indexSize()).isEqualTo(1);
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void aRecordExpiringOnAWholeMillisecondIsSweptAtThatMillisecond() {
        IdempotencyKey k = IdempotencyKey.of("s", "op", "exact");
        store.claim(k, new byte[] {1}, 1, Duration.ofMillis(1), Duration.ofMillis(5));
        clock.advance(Duration.ofMillis(5));
        assertThat(store.find(k)).isEmpty();
        assertThat(store.purgeExpired(10)).isEqualTo(1);
    }
}
