package dev.idem.engine;

import static dev.idem.engine.Explorer.check;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.internal.NearCache;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The near cache in every interleaving of a completed record entering it, the engine's ticker
 * moving past the record's end, and a replay reading it: an entry is never served once the ticker
 * passed the time its record had left, counted from before the store was asked.
 */
class NearCacheExploreTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("explore", "near", "k");
    /** The record had this long left, counted from tick 0 (when its claim was sent). */
    private static final long LEFT = 10;

    @Test
    void anEntryIsNeverServedPastItsRecordsEnd() {
        Explorer.explore(() -> {
            AtomicLong ticks = new AtomicLong();
            NearCache cache = new NearCache(16, ticks::get);
            Explorer.parties(
                    () -> cache.put(KEY, new byte[] {1}, new byte[] {2}, 0, LEFT, 1),
                    () -> ticks.set(LEFT),
                    () -> {
                        long before = ticks.get();
                        NearCache.Entry served = cache.get(KEY);
                        check(served == null || before < LEFT, "an entry was served at tick " + before
                                + ", past its record's end at tick " + LEFT);
                    });
            check(cache.get(KEY) == null, "an entry outlived its record's end");
        });
    }
}
