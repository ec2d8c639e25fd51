package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.idem.api.IdempotencyKey;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * A bounded, process-local cache of COMPLETED records, so replays on a hot key skip the
 * store. Only completed outcomes enter it (they never change until they expire), never
 * IN_PROGRESS records. Backed by Caffeine: bounded by entry count (size-based eviction),
 * each entry expiring at its record's own expiry by the engine's clock, thread-safe.
 */
public final class NearCache {
    private final Clock clock;
    private final Cache<IdempotencyKey, Entry> cache;

    /** A cached completed record. */
    public static final class Entry {
        final byte[] fingerprint;
        final byte[] outcome;
        final long expiresAtMillis;
        final int attempt;

        Entry(byte[] fingerprint, byte[] outcome, long expiresAtMillis, int attempt) {
            this.fingerprint = fingerprint;
            this.outcome = outcome;
            this.expiresAtMillis = expiresAtMillis;
            this.attempt = attempt;
        }

        /**
         * The request fingerprint.
         *
         * @return the fingerprint (not copied)
         */
        public byte[] fingerprint() {
            return fingerprint;
        }

        /**
         * The stored outcome.
         *
         * @return the outcome (not copied)
         */
        public byte[] outcome() {
            return outcome;
        }

        /**
         * The attempt that produced it.
         *
         * @return the attempt number
         */
        public int attempt() {
            return attempt;
        }
    }

    /**
     * Creates a cache holding at most {@code maxEntries} records.
     *
     * @param maxEntries the size bound
     * @param clock the engine's clock, against which record expiries are compared
     */
    public NearCache(int maxEntries, Clock clock) {
        this.clock = clock;
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                // Maintenance on the calling thread: no background tasks in an embeddable library.
                .executor(Runnable::run)
                .expireAfter(new Expiry<IdempotencyKey, Entry>() {
                    @Override
                    public long expireAfterCreate(IdempotencyKey key, Entry value, long currentTime) {
                        return left(value);
                    }

                    @Override
                    public long expireAfterUpdate(IdempotencyKey key, Entry value, long currentTime,
                            long currentDuration) {
                        return left(value);
                    }

                    @Override
                    public long expireAfterRead(IdempotencyKey key, Entry value, long currentTime,
                            long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
    }

    private long left(Entry e) {
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, e.expiresAtMillis - clock.millis()));
    }

    /**
     * The unexpired entry, or null.
     *
     * @param key the key
     * @param nowMillis the engine clock's current time
     * @return the entry, or null if absent or expired
     */
    public Entry get(IdempotencyKey key, long nowMillis) {
        Entry e = cache.getIfPresent(key);
        if (e != null && nowMillis >= e.expiresAtMillis) {
            cache.asMap().remove(key, e);
            return null;
        }
        return e;
    }

    /**
     * Caches a completed record.
     *
     * @param key the key
     * @param fingerprint the record's request fingerprint
     * @param outcome the stored outcome
     * @param expiresAtMillis when the record expires, in epoch milliseconds
     * @param attempt the attempt that produced the outcome
     */
    public void put(IdempotencyKey key, byte[] fingerprint, byte[] outcome, long expiresAtMillis, int attempt) {
        cache.put(key, new Entry(fingerprint, outcome, expiresAtMillis, attempt));
    }

    /**
     * Entries currently held, after pending evictions ran.
     *
     * @return the number of entries
     */
    public long size() {
        cache.cleanUp();
        return cache.estimatedSize();
    }
}
