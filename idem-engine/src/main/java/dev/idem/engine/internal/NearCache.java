package dev.idem.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Ticker;

/**
 * A bounded, process-local cache of COMPLETED records, so replays on a hot key skip the
 * store. Only completed outcomes enter it (they never change until they expire), never
 * IN_PROGRESS records. Backed by Caffeine: bounded by entry count (size-based eviction),
 * thread-safe. Each entry lives for the time its record had left when the store answered,
 * counted on the engine's monotonic {@link Ticker} from before the question was sent (the
 * answer's time in transit shortens the entry's life, never lengthens it): no wall clock is
 * read, so a clock stepped back (or a store whose clock is skewed from the JVM's) never keeps
 * an entry past its record's expiry.
 */
public final class NearCache {
    private final Ticker ticker;
    private final Cache<IdempotencyKey, Entry> cache;

    /** A cached completed record. */
    public static final class Entry {
        final byte[] fingerprint;
        final byte[] outcome;
        final long expiresAtTick;
        final int attempt;

        Entry(byte[] fingerprint, byte[] outcome, long expiresAtTick, int attempt) {
            this.fingerprint = fingerprint;
            this.outcome = outcome;
            this.expiresAtTick = expiresAtTick;
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
     * @param ticker the engine's monotonic time source, against which entries expire
     */
    public NearCache(int maxEntries, Ticker ticker) {
        this.ticker = ticker;
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(ticker::read)
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
        return Math.max(0, e.expiresAtTick - ticker.read());
    }

    /**
     * The unexpired entry, or null.
     *
     * @param key the key
     * @return the entry, or null if absent or expired
     */
    public Entry get(IdempotencyKey key) {
        // Caffeine reads the same ticker, and drops an entry once its time left has passed.
        return cache.getIfPresent(key);
    }

    /**
     * Caches a completed record.
     *
     * @param key the key
     * @param fingerprint the record's request fingerprint
     * @param outcome the stored outcome
     * @param sinceTick a ticker reading taken before the request that told the record's life was
     *     sent: the entry lives {@code timeLeftNanos} from then, so an answer that took long to
     *     arrive can only make it end early, never after the record
     * @param timeLeftNanos how long the record had left when the store answered
     * @param attempt the attempt that produced the outcome
     */
    public void put(IdempotencyKey key, byte[] fingerprint, byte[] outcome, long sinceTick, long timeLeftNanos,
            int attempt) {
        cache.put(key, new Entry(fingerprint, outcome, sinceTick + Math.max(0, timeLeftNanos), attempt));
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
