package dev.idem.store.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.testsupport.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The memory store at its exact limits: the outcome size limit, expiry instants, the purge's
 * bounded scan and the amortized sweep, plus its builder and ServiceLoader provider.
 */
class MemoryStoreLimitsTest {
    private static final byte[] FP = {1};
    private static final Duration LEASE = Duration.ofSeconds(1);
    private final MutableClock clock = new MutableClock();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("s", "op", k);
    }

    @Test
    void anOutcomeOrJournalOfExactlyTheLimitIsStoredOneByteMoreIsRefused() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).maxOutcomeBytes(8).build();
        assertThat(store.capabilities().maxOutcomeBytes()).isEqualTo(8);
        store.claim(key("a"), FP, 1, LEASE, Duration.ofHours(1));

        assertThat(store.checkpoint(key("a"), 1, new byte[8])).isTrue();
        assertThatThrownBy(() -> store.checkpoint(key("a"), 1, new byte[9]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("journal is 9 bytes");
        assertThatThrownBy(() -> store.complete(key("a"), 1, new byte[9], Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outcome is 9 bytes");
        assertThat(store.complete(key("a"), 1, new byte[8], Duration.ofHours(1))).isTrue();
        assertThat(store.find(key("a")).orElseThrow().outcome()).hasSize(8);
    }

    @Test
    void theBuilderRefusesANonPositiveLimitAndCreateUsesTheDefaults() {
        assertThatThrownBy(() -> MemoryIdempotencyStore.builder().maxOutcomeBytes(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxOutcomeBytes");
        assertThat(MemoryIdempotencyStore.builder().maxOutcomeBytes(1).build().capabilities().maxOutcomeBytes())
                .isEqualTo(1);
        MemoryIdempotencyStore created = MemoryIdempotencyStore.create();
        assertThat(created.capabilities().maxOutcomeBytes()).isEqualTo(16 * 1024 * 1024);
        assertThat(created.claim(key("b"), FP, 1, LEASE, Duration.ofHours(1)).claimed()).isTrue();
    }

    @Test
    void theProviderIsNamedMemoryAndRunsOnTheEnginesClock() {
        MemoryStoreProvider provider = new MemoryStoreProvider();
        assertThat(provider.name()).isEqualTo("memory");
        IdempotencyStore store = provider.create(new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return clock;
            }

            @Override
            public Map<String, String> properties() {
                return Map.of();
            }
        });
        assertThat(store).isInstanceOf(MemoryIdempotencyStore.class);
        Instant start = clock.instant();
        assertThat(store.claim(key("c"), FP, 1, LEASE, Duration.ofSeconds(5)).record().expiresAt())
                .isEqualTo(start.plusSeconds(5));
    }

    @Test
    void aRecordIsPurgedAtExactlyItsExpiry() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        store.claim(key("d"), FP, 1, LEASE, Duration.ofSeconds(5));
        assertThatThrownBy(() -> store.purgeExpired(0)).isInstanceOf(IllegalArgumentException.class);

        clock.advance(Duration.ofSeconds(5).minusMillis(1));
        assertThat(store.purgeExpired(1)).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(store.purgeExpired(1)).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    @Test
    void purgeFollowsTheLaterExpiryOfACompletion() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        store.claim(key("e"), FP, 1, LEASE, Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(5));
        store.complete(key("e"), 1, new byte[] {2}, Duration.ofSeconds(10)); // expires at 15 s

        clock.advance(Duration.ofSeconds(6)); // 11 s: the claim's expiry passed, the completion's not
        assertThat(store.purgeExpired(10)).isZero();
        clock.advance(Duration.ofSeconds(4)); // 15 s
        assertThat(store.purgeExpired(10)).isEqualTo(1);
        assertThat(store.size()).isZero();
    }

    @Test
    void purgeFollowsTheLaterExpiryOfALeaseExtension() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        store.claim(key("f"), FP, 1, Duration.ofSeconds(5), Duration.ofSeconds(6)); // expires at 6 s
        clock.advance(Duration.ofSeconds(4));
        assertThat(store.extendLease(key("f"), 1, Duration.ofSeconds(5))).isPresent(); // now expires at 9 s

        clock.advance(Duration.ofSeconds(3)); // 7 s
        assertThat(store.purgeExpired(10)).isZero();
        clock.advance(Duration.ofSeconds(2)); // 9 s
        assertThat(store.purgeExpired(10)).isEqualTo(1);
    }

    @Test
    void recordsRewrittenWithALaterExpiryLeaveNothingForAPurgeToWadeThrough() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        // Four records whose claims expired at 1 s but whose completions live an hour.
        for (int i = 0; i < 4; i++) {
            store.claim(key("live" + i), FP, i, LEASE, Duration.ofSeconds(1));
            store.complete(key("live" + i), i, new byte[] {2}, Duration.ofHours(1));
        }
        store.claim(key("dead"), FP, 9, LEASE, Duration.ofMillis(1500));
        clock.advance(Duration.ofSeconds(2));

        // Their entries moved with them, so the first entry due is the expired record's.
        assertThat(store.purgeExpired(1)).isEqualTo(1);
        assertThat(store.size()).isEqualTo(4);
        assertThat(store.indexSize()).isEqualTo(4);
        assertThat(store.purgeExpired(1)).isZero();
    }

    @Test
    void writesSweepExpiredRecordsOnlyEverySweepEveryWrites() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        store.claim(key("old"), FP, 0, LEASE, Duration.ofSeconds(1)); // write 1
        clock.advance(Duration.ofSeconds(2));
        for (int i = 2; i < MemoryIdempotencyStore.SWEEP_EVERY; i++) {
            store.claim(key("new" + i), FP, i, LEASE, Duration.ofHours(1));
        }
        assertThat(store.size()).as("expired, not yet swept").isEqualTo(MemoryIdempotencyStore.SWEEP_EVERY - 1);

        store.claim(key("last"), FP, 99, LEASE, Duration.ofHours(1)); // write SWEEP_EVERY: sweeps
        assertThat(store.size()).isEqualTo(MemoryIdempotencyStore.SWEEP_EVERY - 1);
        assertThat(store.purgeExpired(10)).isZero();
    }
}
