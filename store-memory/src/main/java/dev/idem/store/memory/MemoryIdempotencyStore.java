package dev.idem.store.memory;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link IdempotencyStore} held in a {@link ConcurrentHashMap}: every operation is one
 * {@code compute} on the key's entry, which makes it atomic against all others on that key.
 *
 * <p>Expired records are freed without a background thread: each write adds the record's
 * expiry to an index ordered by time, and every {@value #SWEEP_EVERY}th write sweeps up to
 * {@value #SWEEP_BATCH} entries whose time has passed. Under a steady key rate memory is
 * bounded by the records alive within one TTL. {@link #purgeExpired(int)} does the same
 * on demand.
 */
public final class MemoryIdempotencyStore implements IdempotencyStore {
    static final int SWEEP_EVERY = 64;
    static final int SWEEP_BATCH = 256;

    private final Clock clock;
    private final int maxOutcomeBytes;
    private final ConcurrentHashMap<IdempotencyKey, StoredRecord> records = new ConcurrentHashMap<>();
    private final ConcurrentSkipListSet<Expiry> expiries = new ConcurrentSkipListSet<>();
    private final AtomicLong sequence = new AtomicLong();

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
        StoredRecord written = records.compute(key, (k, current) -> {
            StoredRecord live = current != null && now.isBefore(current.expiresAt()) ? current : null;
            if (live == null) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, 1, now, now, null, lease, ttl);
                result[0] = ClaimResult.acquired(mine, now);
                return mine;
            }
            // Same request again: its journal carries over, so the retry resumes where the last attempt stopped.
            byte[] journal = live.hasFingerprint(fingerprint) ? live.journal() : null;
            if (live.state() == RecordState.RELEASED) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl);
                result[0] = ClaimResult.acquired(mine, now);
                return mine;
            }
            if (live.state() == RecordState.IN_PROGRESS && !now.isBefore(live.leaseExpiresAt())
                    && live.hasFingerprint(fingerprint)) {
                StoredRecord mine = inProgress(k, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl);
                result[0] = ClaimResult.takenOver(mine, now);
                return mine;
            }
            result[0] = ClaimResult.existing(live, now);
            return current;
        });
        if (result[0].claimed()) {
            track(written);
        }
        return result[0];
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        if (outcome.length > maxOutcomeBytes) {
            throw new IllegalArgumentException(
                    "outcome is " + outcome.length + " bytes; this store holds at most " + maxOutcomeBytes);
        }
        Instant now = now();
        boolean[] ok = new boolean[1];
        StoredRecord written = records.computeIfPresent(key, (k, current) -> {
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
            return new StoredRecord(k, RecordState.COMPLETED, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), null, now.plus(ttl), outcome, null);
        });
        if (ok[0]) {
            track(written);
        }
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
        Objects.requireNonNull(journal, "journal");
        if (journal.length > maxOutcomeBytes) {
            throw new IllegalArgumentException(
                    "journal is " + journal.length + " bytes; this store holds at most " + maxOutcomeBytes);
        }
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
        StoredRecord written = records.computeIfPresent(key, (k, current) -> {
            if (current.state() != RecordState.IN_PROGRESS || current.fencingToken() != fencingToken
                    || !now.isBefore(current.expiresAt())) {
                return current;
            }
            ok[0] = true;
            Instant expires = current.expiresAt().isBefore(deadline) ? deadline : current.expiresAt();
            return new StoredRecord(k, RecordState.IN_PROGRESS, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), deadline, expires, null, current.journal());
        });
        if (!ok[0]) {
            return Optional.empty();
        }
        track(written);
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

    private void track(StoredRecord written) {
        long seq = sequence.incrementAndGet();
        expiries.add(new Expiry(written.expiresAt().toEpochMilli(), seq, written.key()));
        if (seq % SWEEP_EVERY == 0) {
            sweep(now(), SWEEP_BATCH);
        }
    }

    // Index entries can be stale (the record was rewritten with a later expiry); removal
    // re-checks the live record under compute, so a stale entry only costs one lookup.
    private int sweep(Instant now, int limit) {
        int removed = 0;
        long nowMillis = now.toEpochMilli();
        // A long scan budget, saturating: limit * 4 overflows for large limits.
        long budget = (long) limit * 4;
        for (long scanned = 0; scanned < budget; scanned++) {
            Expiry head = expiries.pollFirst();
            if (head == null) {
                break;
            }
            if (head.at > nowMillis) {
                expiries.add(head);
                break;
            }
            boolean[] gone = new boolean[1];
            records.computeIfPresent(head.key, (k, r) -> {
                if (now.isBefore(r.expiresAt())) {
                    return r;
                }
                gone[0] = true;
                return null;
            });
            if (gone[0] && ++removed >= limit) {
                break;
            }
        }
        return removed;
    }

    private static final class Expiry implements Comparable<Expiry> {
        final long at;
        final long seq;
        final IdempotencyKey key;

        Expiry(long at, long seq, IdempotencyKey key) {
            this.at = at;
            this.seq = seq;
            this.key = key;
        }

        @Override
        public int compareTo(Expiry o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
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
