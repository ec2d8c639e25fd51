package dev.idem.store.memory;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoreLimits;
import dev.idem.api.store.StoredRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link IdempotencyStore} held in a {@link ConcurrentHashMap}: every operation is one
 * {@code compute} on the key's entry, which makes it atomic against all others on that key.
 *
 * <p>Expired records are freed without a background thread: an index ordered by time holds
 * exactly one entry per record, at its expiry (a write that moves the expiry, such as a
 * lease extension, moves the entry in the same atomic step), and every
 * {@value #SWEEP_EVERY}th claim that wins the key sweeps up to {@value #SWEEP_BATCH} records
 * whose time has passed. Memory is bounded by the records held, however often one is rewritten (a heartbeat
 * every 100 ms adds nothing), and under a steady key rate by the records alive within one
 * TTL. {@link #purgeExpired(int)} does the same on demand.
 */
public final class MemoryIdempotencyStore implements IdempotencyStore {
    static final int SWEEP_EVERY = 64;
    static final int SWEEP_BATCH = 256;

    private final Clock clock;
    private final int maxOutcomeBytes;
    private final ConcurrentHashMap<IdempotencyKey, StoredRecord> records = new ConcurrentHashMap<>();
    private final ConcurrentSkipListSet<Expiry> expiries = new ConcurrentSkipListSet<>();
    private final AtomicLong claims = new AtomicLong();

    private MemoryIdempotencyStore(Builder b) {
        this.clock = b.clock;
        this.maxOutcomeBytes = b.maxOutcomeBytes;
    }

    /**
     * A store on the system UTC clock.
     *
     * @return a store on the system UTC clock
     */
    public static MemoryIdempotencyStore create() {
        return builder().build();
    }

    /**
     * A builder for a store with a custom clock or outcome limit.
     *
     * @return this builder
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Instant now = now();
        // A duplicate that can only be told "it exists" (a live completed record, or a live
        // lease) reads the map without locking: a replay or a loser on a hot key never waits
        // for the bin lock, which other keys may share. The record read is what a compute at
        // that instant would have returned.
        StoredRecord seen = records.get(key);
        if (seen != null && now.isBefore(seen.expiresAt()) && (seen.state() == RecordState.COMPLETED
                || seen.state() == RecordState.IN_PROGRESS && now.isBefore(seen.leaseExpiresAt()))) {
            return ClaimResult.existing(seen, now);
        }
        ClaimResult[] result = new ClaimResult[1];
        records.compute(key, (k, current) -> {
            StoredRecord live = current != null && now.isBefore(current.expiresAt()) ? current : null;
            if (live == null) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, 1, now, now, null, lease, ttl);
                result[0] = ClaimResult.acquired(mine, now);
                return reindexed(current, mine);
            }
            // Same request again: its journal carries over, so the retry resumes where the last attempt stopped.
            byte[] journal = live.hasFingerprint(fingerprint) ? live.journal() : null;
            if (live.state() == RecordState.RELEASED) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl);
                result[0] = ClaimResult.acquired(mine, now);
                return reindexed(current, mine);
            }
            if (live.state() == RecordState.IN_PROGRESS && !now.isBefore(live.leaseExpiresAt())
                    && live.hasFingerprint(fingerprint)) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl);
                result[0] = ClaimResult.takenOver(mine, now);
                return reindexed(current, mine);
            }
            result[0] = ClaimResult.existing(live, now);
            return current;
        });
        if (result[0].claimed()) {
            claimed();
        }
        return result[0];
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        StoreLimits.checkSize("outcome", outcome, maxOutcomeBytes);
        Instant now = now();
        boolean[] ok = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (!now.isBefore(current.expiresAt()) || current.fencingToken() != fencingToken) {
                return current;
            }
            if (current.state() == RecordState.COMPLETED) {
                ok[0] = true;
                return current;
            }
            if (current.state() != RecordState.IN_PROGRESS) {
                return current;
            }
            ok[0] = true;
            return reindexed(current, new StoredRecord(k, RecordState.COMPLETED, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), null, now.plus(ttl), outcome, null));
        });
        return ok[0];
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        Instant now = now();
        boolean[] ok = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (current.fencingToken() != fencingToken || !now.isBefore(current.expiresAt())) {
                return current;
            }
            if (current.state() == RecordState.RELEASED) {
                ok[0] = true;
                return current;
            }
            if (current.state() != RecordState.IN_PROGRESS) {
                return current;
            }
            ok[0] = true;
            return new StoredRecord(k, RecordState.RELEASED, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), null, current.expiresAt(), null, current.journal());
        });
        return ok[0];
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        StoreLimits.checkSize("journal", journal, maxOutcomeBytes);
        Instant now = now();
        boolean[] ok = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (current.state() != RecordState.IN_PROGRESS || current.fencingToken() != fencingToken
                    || !now.isBefore(current.expiresAt())) {
                return current;
            }
            ok[0] = true;
            return new StoredRecord(k, RecordState.IN_PROGRESS, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), current.leaseExpiresAt(), current.expiresAt(), null,
                    journal);
        });
        return ok[0];
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        Instant now = now();
        Instant deadline = now.plus(lease);
        boolean[] ok = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (current.state() != RecordState.IN_PROGRESS || current.fencingToken() != fencingToken
                    || !now.isBefore(current.expiresAt())) {
                return current;
            }
            ok[0] = true;
            Instant expires = current.expiresAt().isBefore(deadline) ? deadline : current.expiresAt();
            return reindexed(current, new StoredRecord(k, RecordState.IN_PROGRESS, current.fingerprint(),
                    fencingToken, current.attempt(), current.createdAt(), deadline, expires, null, current.journal()));
        });
        if (!ok[0]) {
            return Optional.empty();
        }
        return Optional.of(deadline);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        StoredRecord r = records.get(key);
        if (r == null || !now().isBefore(r.expiresAt())) {
            return Optional.empty();
        }
        return Optional.of(r);
    }

    @Override
    public int purgeExpired(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive but was " + limit);
        }
        return sweep(now(), limit);
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, false, maxOutcomeBytes);
    }

    /**
     * Number of records held, expired or not; for tests and monitoring.
     *
     * @return number of records held, expired or not
     */
    public int size() {
        return records.size();
    }

    /** Entries in the expiry index: one per record held. */
    int indexSize() {
        return expiries.size();
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    private static StoredRecord inProgress(IdempotencyKey key, byte[] fingerprint, long token, int attempt,
            Instant createdAt, Instant now, byte[] journal, Duration lease, Duration ttl) {
        Instant leaseUntil = now.plus(lease);
        Instant expires = now.plus(ttl);
        if (expires.isBefore(leaseUntil)) {
            expires = leaseUntil;
        }
        return new StoredRecord(key, RecordState.IN_PROGRESS, fingerprint, token, attempt, createdAt, leaseUntil,
                expires, null, journal);
    }

    /**
     * Moves the record's index entry to its new expiry; called inside the {@code compute} that
     * writes {@code after}, so the index changes atomically with the record it tracks and holds
     * exactly one entry per record.
     */
    private StoredRecord reindexed(StoredRecord before, StoredRecord after) {
        long at = indexedAt(after);
        if (before != null) {
            long was = indexedAt(before);
            if (was == at) {
                return after;
            }
            expiries.remove(new Expiry(was, before.key()));
        }
        expiries.add(new Expiry(at, after.key()));
        return after;
    }

    // Rounded up, so an entry whose time has passed always belongs to an expired record.
    private static long indexedAt(StoredRecord r) {
        Instant at = r.expiresAt();
        long millis = at.toEpochMilli();
        return at.getNano() % 1_000_000 == 0 ? millis : millis + 1;
    }

    // Only claims create records, so sweeping every so many claims bounds what is held.
    private void claimed() {
        if (claims.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep(now(), SWEEP_BATCH);
        }
    }

    // The entry is taken out before the record is looked at; a write that moved it meanwhile
    // wins (the removal fails and the record stays), and the record is removed only if it is
    // still the one that was found expired, so one rewritten after the removal is kept.
    private int sweep(Instant now, int limit) {
        int removed = 0;
        long nowMillis = now.toEpochMilli();
        Iterator<Expiry> due = expiries.iterator();
        while (due.hasNext()) {
            Expiry head = due.next();
            if (head.at > nowMillis) {
                break;
            }
            if (!expiries.remove(head)) {
                continue;
            }
            StoredRecord r = records.get(head.key);
            // Removed only if it is still this expired record: a write since replaced it (and moved its entry).
            if (r != null && !now.isBefore(r.expiresAt()) && records.remove(head.key, r) && ++removed >= limit) {
                break;
            }
        }
        return removed;
    }

    private static final class Expiry implements Comparable<Expiry> {
        final long at;
        final IdempotencyKey key;

        Expiry(long at, IdempotencyKey key) {
            this.at = at;
            this.key = key;
        }

        // Time first, then the key, so that an entry can be found again to be moved.
        @Override
        public int compareTo(Expiry o) {
            int c = Long.compare(at, o.at);
            if (c == 0) {
                c = key.scope().compareTo(o.key.scope());
            }
            if (c == 0) {
                c = key.operation().compareTo(o.key.operation());
            }
            return c != 0 ? c : key.key().compareTo(o.key.key());
        }
    }

    /** Validating builder; every setter rejects a bad value at once. */
    public static final class Builder {
        private Clock clock = Clock.systemUTC();
        private int maxOutcomeBytes = 16 * 1024 * 1024;

        private Builder() {
        }

        /**
         * The clock leases and expiry are judged by; inject a fixed or mutable one in tests.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The largest outcome accepted, in bytes (default 16 MiB).
         *
         * @param maxOutcomeBytes the largest outcome or journal accepted
         * @return this builder
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            if (maxOutcomeBytes < 1) {
                throw new IllegalArgumentException("maxOutcomeBytes must be positive but was " + maxOutcomeBytes);
            }
            this.maxOutcomeBytes = maxOutcomeBytes;
            return this;
        }

        /**
         * Builds the store.
         *
         * @return the store
         */
        public MemoryIdempotencyStore build() {
            return new MemoryIdempotencyStore(this);
        }
    }
}
