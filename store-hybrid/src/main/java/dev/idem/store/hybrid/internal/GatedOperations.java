package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreLimits;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The hybrid store's algorithm: which question goes to the gate, which to the database, and
 * what the gate learns afterwards. The rules that make every gate answer one the database
 * would give (see the module README for the argument):
 * <ul>
 *   <li>Only the database grants a claim. The gate answers a claim only with a completed
 *       record it copied from a database answer, or with a live lease of the same request.</li>
 *   <li>When the gate has no record of the key, it writes the claim's
 *       own record first (a prediction) and then asks the database, so duplicates arriving
 *       meanwhile are refused without a database statement. Every other claim that reaches the
 *       database is counted in the gate while it is in flight, and no prediction is made
 *       meanwhile, so a prediction is never overtaken by a claim the gate did not see.</li>
 *   <li>Whoever learns a database state the gate might not show writes it (or U, "ask the
 *       database") before returning: a claim its answer, a completion U, a release RELEASED,
 *       a refusal of a token U, a read what it read. Writes are compare-and-set on what the
 *       writer saw; when that fails, U.</li>
 *   <li>Deadlines reach the gate as a lower bound of the gate's clock taken before the database
 *       call plus the time the database granted, so they fall due on the gate no later than in
 *       the database, whatever either server's clock reads.</li>
 * </ul>
 * Any gate failure leaves the call to the database alone.
 */
public final class GatedOperations {
    /** How long a gate record that says "ask the database" lasts when the record's expiry is not known. */
    public static final long UNKNOWN_MS = Gate.UNKNOWN_MS;
    /**
     * The longest a fenced operation waits for a predicted claim of its token to reach the database,
     * and another request's claim for a predicted claim of the key.
     */
    static final Duration PREDICTION_WAIT = Duration.ofSeconds(5);
    private static final System.Logger LOG = System.getLogger(GatedOperations.class.getName());

    private final JdbcIdempotencyStore truth;
    private final Gate gate;
    private final Breaker breaker;
    private final Events events;
    private final long marginMs;
    private final Ticker ticker;
    private final Sleeper sleeper;

    /**
     * Creates the operations.
     *
     * @param truth the database store
     * @param gate the Redis gate
     * @param breaker when to skip the gate
     * @param events told about events
     * @param marginMs the safety margin, also added to every "ask the database" period
     * @param ticker measures the wait for a predicted claim to land
     * @param sleeper pauses between retries of that wait
     */
    public GatedOperations(JdbcIdempotencyStore truth, Gate gate, Breaker breaker, Events events, long marginMs,
            Ticker ticker, Sleeper sleeper) {
        this.truth = truth;
        this.gate = gate;
        this.breaker = breaker;
        this.events = events;
        this.marginMs = marginMs;
        this.ticker = ticker;
        this.sleeper = sleeper;
    }

    /**
     * See {@link dev.idem.api.store.IdempotencyStore#claim}.
     *
     * @param key the key
     * @param fingerprint the fingerprint
     * @param token the caller's token
     * @param lease the lease
     * @param ttl the TTL
     * @return the claim's result
     */
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        // The database's own checks first: a claim it would refuse must not leave a prediction behind.
        Objects.requireNonNull(key, "key"); // IdempotencyKey already refuses what a database cannot store
        StoreLimits.checkFingerprint(fingerprint, JdbcIdempotencyStore.MAX_FINGERPRINT_BYTES);
        long leaseMs = StoreLimits.durationMillis("lease", lease, JdbcIdempotencyStore.MAX_DURATION);
        long ttlMs = StoreLimits.durationMillis("ttl", ttl, JdbcIdempotencyStore.MAX_DURATION);
        if (!usable(key)) {
            emit(Type.DECIDED_BY_DATABASE, key, null);
            return truth.claim(key, fingerprint, token, lease, ttl);
        }
        long deadline = ticker.read() + PREDICTION_WAIT.toNanos();
        long pauseMs = 1;
        while (true) {
            String nonce = Gate.nonce();
            GateReply<ClaimAction> g;
            try {
                g = gate.claim(key, fingerprint, token, leaseMs, ttlMs, nonce);
                breaker.succeeded();
            } catch (GateException e) {
                failed(key, e);
                emit(Type.DECIDED_BY_DATABASE, key, null);
                return truth.claim(key, fingerprint, token, lease, ttl);
            }
            if (g.action() != ClaimAction.CHECK_PREDICTION) {
                return answer(key, fingerprint, token, lease, ttl, g);
            }
            if (ticker.read() - deadline >= 0) {
                // The predicted claim never reached the database (its caller died in between): the
                // database decides, and the gate takes its answer in place of the prediction.
                return decided(key, fingerprint, token, lease, ttl, g, false);
            }
            ClaimResult checked = checkedPrediction(key, fingerprint, token, lease, ttl, g);
            if (checked != null) {
                return checked;
            }
            try {
                sleeper.sleep(Duration.ofMillis(pauseMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreUnavailableException(
                        "interrupted while another request's claim of the key was being decided", e, true);
            }
            pauseMs = Math.min(pauseMs * 2, 50);
        }
    }

    /** What the claim script's reply {@code g} means for this claim (every action but CHECK_PREDICTION). */
    private ClaimResult answer(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            GateReply<ClaimAction> g) {
        switch (g.action()) {
            case ANSWER:
                StoredRecord answer;
                try {
                    answer = g.toRecord(key);
                } catch (RuntimeException e) {
                    failed(key, new GateException("Redis gate claim: unusable record: " + e.getMessage(), e));
                    emit(Type.DECIDED_BY_DATABASE, key, null);
                    return truth.claim(key, fingerprint, token, lease, ttl);
                }
                emit(Type.ANSWERED_BY_GATE, key, null);
                return ClaimResult.existing(answer, g.nowInstant());
            case PREDICTED:
                return predicted(key, fingerprint, token, lease, ttl, g);
            case FOREIGN_REMOVED:
                emit(Type.GATE_CORRECTED, key, null);
                return decided(key, fingerprint, token, lease, ttl, g, true);
            case ASK_DATABASE:
                return decided(key, fingerprint, token, lease, ttl, g, true);
            case READ_OUTCOME:
                return decided(key, fingerprint, token, lease, ttl, g, false);
            default:
                throw new IllegalStateException("answered before: " + g.action());
        }
    }

    /** The gate wrote this claim's record; the database decides whether it stands. */
    private ClaimResult predicted(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            GateReply<ClaimAction> g) {
        long mark = gate.clock().mark();
        ClaimResult d;
        try {
            d = truth.claim(key, fingerprint, token, lease, ttl);
        } catch (RuntimeException e) {
            // Perhaps applied, perhaps not: the gate must not go on showing a claim the caller abandons.
            write(key, g.nonce(), false, null, Gate.UNKNOWN_MS);
            throw e;
        }
        emit(Type.DECIDED_BY_DATABASE, key, null);
        if (d.status() == ClaimResult.Status.ACQUIRED && d.record().fencingToken() == token
                && d.record().attempt() == g.attempt() && d.record().journal() == null) {
            return d;
        }
        // The gate had lost the database's record (or never had it, or the claim took over a
        // journal the gate cannot show): it now holds the database's answer, or U.
        emit(Type.GATE_CORRECTED, key, null);
        write(key, g.nonce(), false, snapshot(d, mark), remainingMs(d));
        return d;
    }

    /**
     * The gate could not tell (pending = true: the claim was counted in the gate while in
     * flight), or knows the key completed but does not keep its outcome (pending = false).
     */
    private ClaimResult decided(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
            GateReply<ClaimAction> g, boolean pending) {
        long mark = gate.clock().mark();
        ClaimResult d;
        try {
            d = truth.claim(key, fingerprint, token, lease, ttl);
        } catch (RuntimeException e) {
            write(key, g.nonce(), pending, null, Gate.UNKNOWN_MS);
            throw e;
        }
        emit(Type.DECIDED_BY_DATABASE, key, null);
        StoredRecord r = d.record();
        if (g.state() == GateState.of(r.state()) && g.token() == r.fencingToken() && g.attempt() == r.attempt()
                && r.state() == RecordState.COMPLETED && !pending) {
            return d;
        }
        write(key, g.nonce(), pending, snapshot(d, mark), remainingMs(d));
        return d;
    }

    /**
     * Another request's predicted lease. Its answer (422 for this request) is given only once the
     * predicted claim is in the database: until then this request waits (null), since the database
     * might yet grant the key to this request instead (a claim from a process that does not reach
     * the gate), and a 422 must never reach a request that then owns the key. Only reads: this
     * claim must not overtake the prediction's own, which duplicates may already have been told
     * about.
     *
     * @return the answer, or null to ask the gate again after a pause
     */
    private @Nullable ClaimResult checkedPrediction(IdempotencyKey key, byte[] fingerprint, long token,
            Duration lease, Duration ttl, GateReply<ClaimAction> g) {
        Optional<StoredRecord> found = truth.find(key);
        emit(Type.DECIDED_BY_DATABASE, key, null);
        if (found.isEmpty()) {
            return null;
        }
        StoredRecord r = found.get();
        if (r.fencingToken() == g.token()) {
            if (r.state() == RecordState.IN_PROGRESS) {
                return ClaimResult.existing(g.toRecord(key), g.nowInstant());
            }
            // The predicted claim landed and moved on, and the gate missed it: the database decides.
            return decided(key, fingerprint, token, lease, ttl, g, false);
        }
        if (r.state() == RecordState.RELEASED) {
            // The predicted claim may still be on its way to take this released record over.
            return null;
        }
        // A record the prediction cannot come from: the gate had lost the database's record.
        emit(Type.GATE_CORRECTED, key, null);
        write(key, g.nonce(), false, null, Gate.UNKNOWN_MS);
        return ClaimResult.existing(r, gate.clock().wallNow());
    }

    /**
     * After a completion or release the database confirmed.
     *
     * @param key the key
     * @param token the token
     * @param how COMPLETED or RELEASED
     * @param untilMs how long the database keeps the record at most, if known
     */
    public void finished(IdempotencyKey key, long token, RecordState how, long untilMs) {
        if (!usable(key)) {
            return;
        }
        try {
            GateWrite r = gate.finished(key, token, how, untilMs + marginMs);
            breaker.succeeded();
            if (r == GateWrite.NOW_UNKNOWN) {
                emit(Type.GATE_CORRECTED, key, null);
            }
        } catch (GateException e) {
            failed(key, e);
        }
    }

    /**
     * A fenced operation (complete, release, checkpoint, extend) on the database, and the gate
     * told when the database refused it. One case needs more: the gate may have told a duplicate
     * that this token's claim is in progress before that claim reached the database (a
     * prediction). Refusing the token now would contradict that answer, so while the gate shows
     * the token's claim as predicted the operation is retried, with short pauses, until the
     * claim has landed or the gate no longer shows it (bounded by {@link #PREDICTION_WAIT}).
     * Only a caller that holds someone else's token can meet this: the engine never does.
     *
     * @param <T> the operation's result
     * @param key the key
     * @param token the token
     * @param op the database operation
     * @param accepted whether a result means the database accepted the token
     * @return the database's last answer
     */
    public <T> T fenced(IdempotencyKey key, long token, Supplier<T> op, Predicate<T> accepted) {
        T result = op.get();
        if (accepted.test(result) || !usable(key)) {
            return result;
        }
        long deadline = ticker.read() + PREDICTION_WAIT.toNanos();
        long pauseMs = 1;
        while (true) {
            GateWrite r;
            try {
                r = gate.refused(key, token, ticker.read() - deadline < 0);
                breaker.succeeded();
            } catch (GateException e) {
                failed(key, e);
                return result;
            }
            if (r != GateWrite.PREDICTION_PENDING) {
                if (r == GateWrite.NOW_UNKNOWN) {
                    emit(Type.GATE_CORRECTED, key, null);
                }
                return result;
            }
            try {
                sleeper.sleep(Duration.ofMillis(pauseMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return result;
            }
            pauseMs = Math.min(pauseMs * 2, 50);
            result = op.get();
            if (accepted.test(result)) {
                return result;
            }
        }
    }

    /**
     * After the database refused the token in a transaction of the caller's (which then rolled back).
     *
     * @param key the key
     * @param token the refused token
     */
    public void refused(IdempotencyKey key, long token) {
        untrust(key, token, false);
    }

    /**
     * After the database journaled a step of the token's claim (committed). The gate keeps no
     * journal, so it must stop answering from its in-progress record: a duplicate would be told
     * the claim without the steps it has already recorded. From here on the database answers
     * claims of the key (with the journal) until the record is completed or released.
     *
     * @param key the key
     * @param token the token whose journal moved
     */
    public void journaled(IdempotencyKey key, long token) {
        untrust(key, token, true);
    }

    /** Turns the gate's in-progress (or, after a journal write, released) record of the token into U. */
    private void untrust(IdempotencyKey key, long token, boolean journaled) {
        if (!usable(key)) {
            return;
        }
        try {
            GateWrite r = journaled ? gate.journaled(key, token) : gate.refused(key, token, false);
            breaker.succeeded();
            if (r == GateWrite.NOW_UNKNOWN) {
                emit(Type.GATE_CORRECTED, key, null);
            }
        } catch (GateException e) {
            failed(key, e);
        }
    }

    /**
     * See {@link dev.idem.api.store.IdempotencyStore#extendLease}: the database first, then the gate.
     *
     * @param key the key
     * @param token the token
     * @param lease the new lease
     * @return the database's answer
     */
    public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
        long[] mark = new long[1];
        Optional<Instant> d = fenced(key, token, () -> {
            mark[0] = gate.clock().mark();
            return truth.extendLease(key, token, lease);
        }, Optional::isPresent);
        if (d.isEmpty()) {
            return d;
        }
        long base = gate.clock().lowerBound(mark[0]);
        // Without a reading of the gate's clock, keeping its shorter lease is safe.
        if (base != GateClock.UNKNOWN && usable(key)) {
            try {
                GateWrite r = gate.extended(key, token, base + lease.toMillis(), lease.toMillis() + marginMs);
                breaker.succeeded();
                if (r == GateWrite.NOW_UNKNOWN) {
                    emit(Type.GATE_CORRECTED, key, null);
                }
            } catch (GateException e) {
                failed(key, e);
            }
        }
        return d;
    }

    /**
     * See {@link dev.idem.api.store.IdempotencyStore#find}: the database's answer, and the gate is
     * told what was found, so it never shows the key older than this read. If the gate shows a
     * predicted claim this read is consistent with (it may not have reached the database yet),
     * that claim's record is the answer, since a duplicate may already have been told about it.
     * If the read found nothing but the gate holds a record, that record may have replaced such a
     * prediction after the read (its claim landed, then was completed, released, extended or
     * journaled): the database is read again, once, and that read is the answer (the gate holds
     * "ask the database" by then, so no claim is predicted before it).
     *
     * @param key the key
     * @return the record
     */
    public Optional<StoredRecord> find(IdempotencyKey key) {
        Optional<StoredRecord> found = truth.find(key);
        if (!usable(key)) {
            return found;
        }
        StoredRecord r = found.orElse(null);
        long left = r == null ? 0 : r.expiresAt().toEpochMilli() - gate.clock().wallNow().toEpochMilli();
        GateReply<ObservedAction> g;
        try {
            g = gate.observed(key, r == null ? null : r.state(), r == null ? 0 : r.fencingToken(),
                    r == null ? 0 : r.attempt(), Math.max(Gate.UNKNOWN_MS, left + 60_000));
            breaker.succeeded();
        } catch (GateException e) {
            failed(key, e);
            return found;
        }
        switch (g.action()) {
            case PREDICTED_CLAIM:
                return Optional.of(g.toRecord(key));
            case CONTRADICTED:
                emit(Type.GATE_CORRECTED, key, null);
                return found;
            case CORRECTED_READ_AGAIN:
                emit(Type.GATE_CORRECTED, key, null);
                return truth.find(key);
            case READ_AGAIN:
                return truth.find(key);
            default:
                return found;
        }
    }

    /** Whether the breaker lets this call use the gate (emits GATE_SKIPPED if not). */
    private boolean usable(IdempotencyKey key) {
        if (breaker.allows()) {
            return true;
        }
        emit(Type.GATE_SKIPPED, key, null);
        return false;
    }

    private void write(IdempotencyKey key, String expect, boolean release, @Nullable GateSnapshot rec, long untilMs) {
        try {
            GateWrite r = gate.fix(key, expect, release, rec, untilMs + marginMs);
            breaker.succeeded();
            if (r == GateWrite.NOW_UNKNOWN && rec != null) {
                emit(Type.GATE_CORRECTED, key, null);
            }
        } catch (GateException e) {
            failed(key, e);
        }
    }

    /** The database's record with its instants moved onto the gate's clock, or null without a reading of it. */
    private @Nullable GateSnapshot snapshot(ClaimResult d, long mark) {
        long base = gate.clock().lowerBound(mark);
        if (base == GateClock.UNKNOWN) {
            return null;
        }
        StoredRecord r = d.record();
        if (r.state() == RecordState.IN_PROGRESS && r.journal() != null) {
            // The gate keeps no journal: a record with one is answered by the database.
            return null;
        }
        long at = d.storeTime().toEpochMilli();
        Instant lease = r.leaseExpiresAt();
        return new GateSnapshot(r.state(), r.fingerprint(), r.fencingToken(), r.attempt(),
                base - (at - r.createdAt().toEpochMilli()), lease == null ? 0 : base + (lease.toEpochMilli() - at),
                base + (r.expiresAt().toEpochMilli() - at), r.outcome());
    }

    private static long remainingMs(ClaimResult d) {
        return Math.max(0, d.record().expiresAt().toEpochMilli() - d.storeTime().toEpochMilli());
    }

    private void failed(IdempotencyKey key, GateException e) {
        LOG.log(Level.DEBUG, "Redis gate failed; carrying on with the database alone", e);
        emit(Type.GATE_FAILED, key, e);
        breaker.failed(e);
    }

    private void emit(Type type, @Nullable IdempotencyKey key, @Nullable Throwable cause) {
        events.emit(type, key, cause);
    }
}
