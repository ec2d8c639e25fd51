package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that breaks its contract by answering a claim with a released record it did not let
 * the claim win: the caller gets a {@link StoreUnavailableException} that says the store is
 * broken, the work does not run, and nothing is written; never a replay or a run of the work.
 */
class BrokenClaimAnswerTest {
    @Test
    void aReleasedRecordTheClaimDidNotWinIsAStoreErrorAndNothingRuns() {
        MemoryIdempotencyStore memory = MemoryIdempotencyStore.create();
        ForwardingIdempotencyStore broken = new ForwardingIdempotencyStore(memory) {
            @Override
            public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
                    Duration ttl) {
                Instant now = Instant.parse("2026-01-01T00:00:00Z");
                return ClaimResult.existing(new StoredRecord(key, RecordState.RELEASED, fingerprint, 1, 1, now, null,
                        now.plus(ttl), null, null), now);
            }
        };
        AtomicInteger runs = new AtomicInteger();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "k");
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(broken).build()) {
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, ctx -> {
                runs.incrementAndGet();
                return "ran";
            })).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("RELEASED record")
                    .hasMessageContaining("the store is broken");
        }
        assertThat(runs).hasValue(0);
        assertThat(memory.find(key)).isEmpty();
    }
}
