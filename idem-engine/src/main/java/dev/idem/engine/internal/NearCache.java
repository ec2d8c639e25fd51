package dev.idem.engine.internal;

import dev.idem.api.IdempotencyKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded, process-local cache of COMPLETED records, so replays on a hot key skip the
 * store. Only completed outcomes enter it (they never change until they expire), never
 * IN_PROGRESS records. Eviction is first-in first-out, which is enough for replay storms
 * that hit recent keys.
 */
public final class NearCache {
    private final int maxEntries;
    private final ConcurrentHashMap<IdempotencyKey, Entry> map = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<IdempotencyKey> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

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

        /** The request fingerprint. */
        public byte[] fingerprint() {
            return fingerprint;
        }

        /** The stored outcome. */
        public byte[] outcome() {
            return outcome;
        }

        /** The attempt that produced it. */
        public int attempt() {
            return attempt;
        }
    }

    /** Creates a cache holding at most {@code maxEntries} records. */
    public NearCache(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /** The unexpired entry, or null. */
    public Entry get(IdempotencyKey key, long nowMillis) {
        Entry e = map.get(key);
        if (e == null) {
            return null;
        }
        if (nowMillis >= e.expiresAtMillis) {
            if (map.remove(key, e)) {
                size.decrementAndGet();
            }
            return null;
        }
        return e;
    }

    /** Caches a completed record. */
    public void put(IdempotencyKey key, byte[] fingerprint, byte[] outcome, long expiresAtMillis, int attempt) {
        if (map.put(key, new Entry(fingerprint, outcome, expiresAtMillis, attempt)) == null) {
            order.add(key);
            if (size.incrementAndGet() > maxEntries) {
                IdempotencyKey oldest = order.poll();
                if (oldest != null && map.remove(oldest) != null) {
                    size.decrementAndGet();
                }
            }
        }
    }

    /** Entries currently held (approximate under concurrency). */
    public int size() {
        return map.size();
    }
}
