package dev.idem.store.tck.mutants;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.tck.AnswerGate;
import dev.idem.store.tck.StoreFixture;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The in-memory store's semantics, written out again with one deliberate {@link Bug}. With
 * {@link Bug#NONE} it is a correct store (and the kit must pass it). Atomic operations run
 * under one lock. The non-atomic mutants do what an adapter with a read and a separate write
 * does: read and decide under the lock, {@link Thread#yield()} (the round trip between the
 * two statements), then write what they decided, blindly. Nothing here knows the kit's
 * threads or scheduling: the kit has to make the race happen on its own.
 */
final class MutantStore implements IdempotencyStore {
    private static final int MAX_OUTCOME = 16 * 1024 * 1024;

    private final Bug bug;
    private final Clock clock;
    /** Where the non-blocking form's stages complete: never on the caller's thread. */
    private static final ExecutorService ANSWERS = Executors.newCachedThreadPool(task -> {
        Thread t = new Thread(task, "mutant-answers");
        t.setDaemon(true);
        return t;
    });

    private final Object lock;
    private final Map<Object, StoredRecord> records;
    /** What find reads: the records, except that a claim reaches it a yield later ({@link Bug#FIND_LAGS_CLAIM}). */
    private final Map<Object, StoredRecord> readable;
    private final Map<String, byte[]> outcomesByFingerprint;
    private final NonBlockingStore form;
    /** The backend's answers, held while a test holds them (every instance over one backend shares it). */
    private final AnswerGate gate;

    MutantStore(Bug bug, Clock clock) {
        this(bug, clock, null);
    }

    /** A store on {@code shared}'s records (a fresh set if null); the non-blocking form's bug is its blocking one. */
    private MutantStore(Bug bug, Clock clock, MutantStore shared) {
        this.bug = bug;
        this.clock = clock;
        this.lock = shared == null ? new Object() : shared.lock;
        this.records = shared == null ? new HashMap<>() : shared.records;
        this.readable = shared == null ? new HashMap<>() : shared.readable;
        this.outcomesByFingerprint = shared == null ? new HashMap<>() : shared.outcomesByFingerprint;
        this.gate = shared == null ? new AnswerGate() : shared.gate;
        if (shared != null) {
            this.form = null;
        } else if (bug == Bug.NON_BLOCKING_OWN_RECORDS) {
            this.form = new Form(new MutantStore(Bug.NONE, clock, new MutantStore(Bug.NONE, clock, this, true)));
        } else {
            this.form = new Form(new MutantStore(bug == Bug.NON_BLOCKING_UNFENCED_COMPLETE ? Bug.UNFENCED_COMPLETE
                    : bug, clock, this));
        }
    }

    /** A store with records of its own but {@code gateOf}'s gate (the non-blocking form that keeps its own records). */
    private MutantStore(Bug bug, Clock clock, MutantStore gateOf, boolean ownRecords) {
        this.bug = bug;
        this.clock = clock;
        this.lock = new Object();
        this.records = new HashMap<>();
        this.readable = new HashMap<>();
        this.outcomesByFingerprint = new HashMap<>();
        this.gate = gateOf.gate;
        this.form = null;
    }

    /** Holds every answer of this backend until the returned hold is closed. */
    StoreFixture.AnswersHeld holdAnswers() {
        return gate.hold();
    }

    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.ofNullable(form);
    }

    /** The non-blocking form: each operation of {@code on}, answered on another thread. */
    private static final class Form implements NonBlockingStore {
        private final MutantStore on;

        Form(MutantStore on) {
            this.on = on;
        }

        /** Runs {@code call} on an answer thread, or on the caller's ({@link Bug#NON_BLOCKING_ON_THE_CALLERS_THREAD}). */
        private <T> CompletionStage<T> answer(java.util.function.Supplier<T> call) {
            if (on.bug == Bug.NON_BLOCKING_ON_THE_CALLERS_THREAD) {
                try {
                    return CompletableFuture.completedFuture(call.get());
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            return CompletableFuture.supplyAsync(call, ANSWERS);
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return answer(() -> on.claim(key, fingerprint, fencingToken, lease, ttl));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
            return answer(() -> on.complete(key, fencingToken, outcome, ttl));
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return answer(() -> on.release(key, fencingToken));
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return answer(() -> on.checkpoint(key, fencingToken, journal));
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            return answer(() -> on.extendLease(key, fencingToken, lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return answer(() -> on.find(key));
        }
    }


    private Object storageKey(IdempotencyKey k) {
        return switch (bug) {
            case SCOPE_IGNORED -> List.of(k.operation(), k.key());
            case SCOPE_FOLDED -> List.of(k.scope().strip().toLowerCase(java.util.Locale.ROOT), k.operation(), k.key());
            case OPERATION_IGNORED -> List.of(k.scope(), k.key());
            default -> List.of(k.scope(), k.operation(), k.key());
        };
    }

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    /** A deadline as stored: the whole-second mutant cuts off the fraction. */
    private Instant deadline(Instant at) {
        return bug == Bug.WHOLE_SECOND_DEADLINES ? at.truncatedTo(ChronoUnit.SECONDS) : at;
    }

    private boolean live(StoredRecord r, Instant now) {
        if (r == null) {
            return false;
        }
        return bug == Bug.EXPIRY_OFF_BY_ONE ? !now.isAfter(r.expiresAt()) : now.isBefore(r.expiresAt());
    }

    private boolean lapsed(StoredRecord r, Instant now) {
        return bug == Bug.LEASE_OFF_BY_ONE ? now.isAfter(r.leaseExpiresAt()) : !now.isBefore(r.leaseExpiresAt());
    }

    /** What a caller sees of a record: the fingerprint cache mutant substitutes the cached outcome. */
    private StoredRecord shown(StoredRecord r) {
        if (bug != Bug.WRONG_KEY_OUTCOME || r.state() != RecordState.COMPLETED) {
            return r;
        }
        byte[] cached = outcomesByFingerprint.get(HexFormat.of().formatHex(r.fingerprint()));
        return new StoredRecord(r.key(), r.state(), r.fingerprint(), r.fencingToken(), r.attempt(), r.createdAt(),
                null, r.expiresAt(), cached == null ? r.outcome() : cached, null);
    }

    private interface Decision<T> {
        /** Decides from the record read (null if none) what to return, setting {@code write[0]} to the new record. */
        T decide(StoredRecord current, Instant now, StoredRecord[] write);
    }

    private <T> T run(IdempotencyKey key, boolean nonAtomic, Decision<T> decision) {
        return run(key, nonAtomic, true, decision);
    }

    private <T> T run(IdempotencyKey key, boolean nonAtomic, boolean readableAtOnce, Decision<T> decision) {
        gate.pass();
        Object k = storageKey(key);
        StoredRecord[] write = new StoredRecord[1];
        T result;
        if (!nonAtomic) {
            synchronized (lock) {
                result = decision.decide(records.get(k), now(), write);
                if (write[0] != null) {
                    records.put(k, write[0]);
                    if (readableAtOnce) {
                        readable.put(k, write[0]);
                    }
                }
            }
            if (!readableAtOnce && write[0] != null) {
                // The round trip to the store that reads go to.
                Thread.yield();
                synchronized (lock) {
                    readable.put(k, records.get(k));
                }
            }
            return result;
        }
        synchronized (lock) {
            result = decision.decide(records.get(k), now(), write);
        }
        // The round trip between the read and the write: anyone may act on the key meanwhile.
        Thread.yield();
        if (write[0] != null) {
            synchronized (lock) {
                records.put(k, write[0]);
                readable.put(k, write[0]);
            }
        }
        return result;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        ClaimResult result = run(key, bug == Bug.NON_ATOMIC_CLAIM, bug != Bug.FIND_LAGS_CLAIM, (current, now, write) -> {
            StoredRecord live = live(current, now) ? current : null;
            if (live == null) {
                write[0] = inProgress(key, fingerprint, fencingToken, 1, now, now, null, lease, ttl);
                return ClaimResult.acquired(write[0], now);
            }
            byte[] journal = live.hasFingerprint(fingerprint) ? live.journal() : null;
            if (live.state() == RecordState.RELEASED) {
                write[0] = keptExpiry(inProgress(key, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl), live, Bug.RECLAIM_KEEPS_EXPIRY);
                return ClaimResult.acquired(write[0], now);
            }
            if (live.state() == RecordState.IN_PROGRESS && lapsed(live, now) && live.hasFingerprint(fingerprint)) {
                write[0] = keptExpiry(inProgress(key, fingerprint, fencingToken, live.attempt() + 1, live.createdAt(),
                        now, journal, lease, ttl), live, Bug.TAKEOVER_KEEPS_EXPIRY);
                return ClaimResult.takenOver(write[0], now);
            }
            return ClaimResult.existing(shown(live), now);
        });
        if (bug == Bug.EXISTING_FROM_SECOND_READ && result.status() == ClaimResult.Status.EXISTING) {
            // The claim's write was refused; the record to show is fetched by a second query.
            Thread.yield();
            synchronized (lock) {
                StoredRecord again = records.get(storageKey(key));
                if (live(again, now())) {
                    return ClaimResult.existing(shown(again), result.storeTime());
                }
            }
        }
        return result;
    }

    private boolean holds(StoredRecord r, long token, Instant now) {
        if (r.fencingToken() == token) {
            return true;
        }
        boolean unfenced = bug == Bug.UNFENCED_COMPLETE || bug == Bug.UNFENCED_RELEASE
                || bug == Bug.UNFENCED_CHECKPOINT;
        return unfenced && r.state() == RecordState.IN_PROGRESS && lapsed(r, now);
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] given, Duration ttl) {
        if (given.length > MAX_OUTCOME && bug != Bug.OVERSIZED_OUTCOME_CUT) {
            throw new IllegalArgumentException("outcome is " + given.length + " bytes; at most " + MAX_OUTCOME);
        }
        byte[] outcome = kept(given, bug == Bug.OVERSIZED_OUTCOME_CUT ? MAX_OUTCOME : Integer.MAX_VALUE);
        return run(key, bug == Bug.NON_ATOMIC_COMPLETE, (current, now, write) -> {
            if (!live(current, now)) {
                return false;
            }
            boolean mine = bug == Bug.UNFENCED_COMPLETE ? holds(current, fencingToken, now)
                    : current.fencingToken() == fencingToken;
            if (!mine) {
                return false;
            }
            if (current.state() == RecordState.COMPLETED) {
                return true;
            }
            if (current.state() != RecordState.IN_PROGRESS) {
                return false;
            }
            byte[] stored = bug == Bug.COMPLETE_LOSES_OUTCOME ? new byte[0] : outcome;
            if (bug == Bug.WRONG_KEY_OUTCOME) {
                synchronized (lock) {
                    outcomesByFingerprint.put(HexFormat.of().formatHex(current.fingerprint()), stored);
                }
            }
            write[0] = new StoredRecord(key, RecordState.COMPLETED, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), null, deadline(now.plus(ttl)), stored, null);
            return true;
        });
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return run(key, bug == Bug.NON_ATOMIC_RELEASE, (current, now, write) -> {
            if (!live(current, now)) {
                return false;
            }
            boolean mine = bug == Bug.UNFENCED_RELEASE ? holds(current, fencingToken, now)
                    : current.fencingToken() == fencingToken;
            if (!mine) {
                return false;
            }
            if (current.state() == RecordState.RELEASED) {
                return true;
            }
            if (current.state() != RecordState.IN_PROGRESS) {
                return false;
            }
            write[0] = new StoredRecord(current.key(), RecordState.RELEASED, current.fingerprint(),
                    current.fencingToken(), current.attempt(), current.createdAt(), null, current.expiresAt(), null,
                    current.journal());
            return true;
        });
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] given) {
        if (given.length > MAX_OUTCOME) {
            throw new IllegalArgumentException("journal is " + given.length + " bytes; at most " + MAX_OUTCOME);
        }
        byte[] journal = kept(given, Integer.MAX_VALUE);
        return run(key, bug == Bug.NON_ATOMIC_CHECKPOINT, (current, now, write) -> {
            boolean alive = bug == Bug.CHECKPOINT_AT_EXPIRY
                    ? current != null && !now.isAfter(current.expiresAt()) : live(current, now);
            boolean mine = alive && (bug == Bug.UNFENCED_CHECKPOINT ? holds(current, fencingToken, now)
                    : current.fencingToken() == fencingToken);
            if (!mine || current.state() != RecordState.IN_PROGRESS) {
                return false;
            }
            write[0] = new StoredRecord(current.key(), RecordState.IN_PROGRESS, current.fingerprint(),
                    current.fencingToken(), current.attempt(), current.createdAt(), current.leaseExpiresAt(),
                    current.expiresAt(), null, journal);
            return true;
        });
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return run(key, bug == Bug.NON_ATOMIC_EXTEND, (current, now, write) -> {
            if (!live(current, now) || current.state() != RecordState.IN_PROGRESS
                    || current.fencingToken() != fencingToken) {
                return Optional.<Instant>empty();
            }
            Instant deadline = deadline(now.plus(lease));
            Instant expires = bug == Bug.EXTEND_SHORTENS_EXPIRY ? deadline
                    : bug == Bug.EXTEND_KEEPS_EXPIRY || deadline.isBefore(current.expiresAt())
                    ? current.expiresAt() : deadline;
            write[0] = new StoredRecord(current.key(), RecordState.IN_PROGRESS, current.fingerprint(), fencingToken,
                    current.attempt(), current.createdAt(), deadline, expires, null, current.journal());
            return Optional.of(deadline);
        });
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        gate.pass();
        synchronized (lock) {
            StoredRecord current = readable.get(storageKey(key));
            return live(current, now()) ? Optional.of(shown(current)) : Optional.empty();
        }
    }

    @Override
    public int purgeExpired(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive but was " + limit);
        }
        synchronized (lock) {
            Instant now = now();
            int removed = 0;
            for (Iterator<StoredRecord> it = records.values().iterator(); it.hasNext() && removed < limit; ) {
                StoredRecord r = it.next();
                boolean lapsedLease = bug == Bug.PURGE_LAPSED_LEASES && r.state() == RecordState.IN_PROGRESS
                        && lapsed(r, now);
                boolean released = bug == Bug.PURGE_RELEASED && r.state() == RecordState.RELEASED;
                if (!live(r, now) || lapsedLease || released) {
                    it.remove();
                    removed++;
                }
            }
            readable.keySet().retainAll(records.keySet());
            return removed;
        }
    }

    /** What is kept of {@code given}: at most {@code max} bytes, or 4 MiB ({@link Bug#CUT_ABOVE_FOUR_MIB}). */
    private byte[] kept(byte[] given, int max) {
        int limit = bug == Bug.CUT_ABOVE_FOUR_MIB ? Math.min(max, 4 * 1024 * 1024) : max;
        return given.length > limit ? Arrays.copyOf(given, limit) : given;
    }

    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return bug == Bug.BACKED_BY_ANY_STORE || store == this;
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(false, false, MAX_OUTCOME);
    }

    /** {@code fresh}, with {@code old}'s expiry if this store has {@code keeping}. */
    private StoredRecord keptExpiry(StoredRecord fresh, StoredRecord old, Bug keeping) {
        if (bug != keeping) {
            return fresh;
        }
        return new StoredRecord(fresh.key(), fresh.state(), fresh.fingerprint(), fresh.fencingToken(),
                fresh.attempt(), fresh.createdAt(), fresh.leaseExpiresAt(), old.expiresAt(), null, fresh.journal());
    }

    private StoredRecord inProgress(IdempotencyKey key, byte[] fingerprint, long token, int attempt,
            Instant createdAt, Instant now, byte[] journal, Duration lease, Duration ttl) {
        Instant leaseUntil = deadline(now.plus(lease));
        Instant expires = deadline(now.plus(ttl));
        if (expires.isBefore(leaseUntil) && bug != Bug.RECORD_DIES_UNDER_LEASE) {
            expires = leaseUntil;
        }
        return new StoredRecord(key, RecordState.IN_PROGRESS, fingerprint, token, attempt, createdAt, leaseUntil,
                expires, null, journal);
    }
}
