package dev.idem.engine;

import static dev.idem.engine.Explorer.check;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The near cache in every interleaving of a replay with the record's end passing (on the store's
 * clock, then on the engine's ticker): a replay is never served from the cache once the record it
 * was made from has ended, so a key whose record is gone runs again instead of answering from memory.
 * The engine runs whole: its near cache, a memory store, a clock and a ticker the scenario moves.
 */
class NearCacheExploreTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("explore", "near", "k");
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration TTL = Duration.ofMinutes(10);

    /** A clock the scenario sets; every reading is of the one instant it holds. */
    static final class SetClock extends Clock {
        private volatile Instant now = START;

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aReplayIsNeverServedFromTheCachePastItsRecordsEnd() {
        // Each schedule builds an engine: the scenario's few switch points need fewer schedules.
        Explorer.explore(Explorer.INVOCATIONS / 16, 400, () -> {
            SetClock clock = new SetClock();
            AtomicLong ticks = new AtomicLong();
            IdempotencyEngine engine = IdempotencyEngine.builder()
                    .store(MemoryIdempotencyStore.builder().clock(clock).build())
                    .clock(clock)
                    .ticker(ticks::get)
                    .ttl(TTL)
                    .lease(Duration.ofSeconds(30))
                    .nearCache(16)
                    .asyncExecutor(Runnable::run)
                    .leaseRenewalExecutor(Runnable::run)
                    .scheduler(new CancelledWaiterExploreTest.Timer())
                    .build();
            AtomicInteger runs = new AtomicInteger();
            AsyncWork<String> work = ctx -> CompletableFuture.completedFuture("run " + runs.incrementAndGet());
            engine.executeAsync(KEY, "{\"order\":42}", String.class, work).join();
            long end = TTL.toNanos();
            Explorer.parties(
                    () -> {
                        // The record ends in the store first, then on the engine's ticker.
                        clock.set(START.plus(TTL).plusSeconds(1));
                        ticks.set(end + Duration.ofSeconds(1).toNanos());
                    },
                    () -> {
                        long before = ticks.get();
                        Result<String> answer = engine.executeAsync(KEY, "{\"order\":42}", String.class, work).join();
                        check(!answer.replayed() || before < end, "a replay was served at tick " + before
                                + " from a record that ended at tick " + end + ": " + answer);
                    });
        });
    }
}
