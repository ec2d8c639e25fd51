package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Completing after the work ran is retried a bounded number of times with a doubling pause
 * (50 ms, 100 ms, ...), only for retryable store failures, and the schedule is exact.
 */
class CompletionRetryTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private CompleteFailures store;
    private final List<Long> sleeps = new ArrayList<>();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("t", "op", k);
    }

    /** Fails the first {@code failures} completes, then lets them through. */
    private IdempotencyEngine engine(int attempts, int failures, boolean retryable) {
        store = new CompleteFailures(memory, failures, retryable);
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).completeAttempts(attempts)
                .sleeper(d -> sleeps.add(d.toMillis())).build();
    }

    @Test
    void aTransientFailureIsRetriedWithADoublingPauseUntilItSucceeds() {
        Result<String> r = engine(4, 3, true).execute(key("a"), "{}", String.class, ctx -> "v");
        assertThat(r.stored()).isTrue();
        assertThat(sleeps).containsExactly(50L, 100L, 200L);
        assertThat(store.completes).hasValue(1);
        assertThat(memory.find(key("a")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void whenEveryAttemptFailsTheValueIsReturnedUnstoredAfterExactlyTheAttempts() {
        Result<String> r = engine(3, 100, true).execute(key("b"), "{}", String.class, ctx -> "v");
        assertThat(r.value()).isEqualTo("v");
        assertThat(r.stored()).isFalse();
        assertThat(sleeps).containsExactly(50L, 100L);
        assertThat(memory.find(key("b")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void aSingleAttemptNeverPauses() {
        Result<String> r = engine(1, 1, true).execute(key("c"), "{}", String.class, ctx -> "v");
        assertThat(r.stored()).isFalse();
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aNonRetryableFailureIsNotRetried() {
        try {
            engine(3, 1, false).execute(key("d"), "{}", String.class, ctx -> "v");
        } catch (RuntimeException expected) {
            // Whatever the engine answers, it must not have paused and retried a refusal.
        }
        assertThat(sleeps).isEmpty();
    }

    /** The faulty store with a countdown of complete failures in front. */
    private static final class CompleteFailures extends FaultyStore {
        private int failuresLeft;
        private final boolean retryable;

        CompleteFailures(MemoryIdempotencyStore delegate, int failures, boolean retryable) {
            super(delegate);
            this.failuresLeft = failures;
            this.retryable = retryable;
        }

        @Override
        public synchronized boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            if (failuresLeft > 0) {
                failuresLeft--;
                throw new StoreUnavailableException("complete failed (injected)", null, retryable);
            }
            return super.complete(key, token, outcome, ttl);
        }
    }
}
