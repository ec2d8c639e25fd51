package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.DeadlineExceededException;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.engine.internal.StepJournal;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One call of the engine: the state machine from fingerprint to result.
 *
 * <p>{@link #run} claims (polling with backoff while a live lease holds the key, if the
 * policy waits), replays, or runs the work; {@link #finish} then decides, from what the
 * work returned or threw and from the engine's own record of its steps
 * ({@link StepContext}), how the key ends. Store writes after the work are in
 * {@link Recorder}. Every duration is measured on the engine's {@link dev.idem.api.time.Ticker};
 * no wall clock is read.
 *
 * <p>A caller's {@link Deadline} ({@link CallOptions#deadline()}) is checked before the claim and
 * once the claim is won, bounds a duplicate's wait, and may shorten the claim's lease
 * ({@link #claimLease()}); once the work has started it stops nothing.
 */
final class Execution<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final JavaType type;
    private final CallOptions options;
    private final Duration lease;
    private final Duration ttl;
    private final InProgressPolicy policy;
    private final long started;
    private final Recorder recorder;
    private final Deadline deadline;
    // The lease of the latest claim: the call's lease, or shorter by the deadline (see claimLease()).
    private volatile Duration claimedLease;
    private final OutcomeFilter filter;
    // The request, kept to take its fingerprint again in the version a record was claimed under.
    private Object request;
    // The request's fingerprint in an older version that a stored record holds (a retry across
    // turning keyed fingerprints on or rotating their secret), once the request is known to match it.
    private volatile byte[] reconciled;
    // The journal the won claim handed over, decrypted.
    private volatile byte[] claimedJournal;

    Execution(EngineParts parts, IdempotencyKey key, JavaType type, CallOptions options) {
        this.parts = parts;
        this.key = key;
        this.type = type;
        this.options = options;
        this.lease = options.lease() != null ? options.lease() : parts.lease();
        this.ttl = options.ttl() != null ? options.ttl() : parts.ttl();
        this.policy = options.inProgress() != null ? options.inProgress() : parts.inProgress();
        this.deadline = options.deadline();
        this.claimedLease = lease;
        this.started = parts.listener() == IdempotencyListener.NONE ? 0 : parts.ticker().read();
        // The engine's own pair was checked at build time; only overrides need checking here.
        if (options.lease() != null || options.ttl() != null || options.inProgress() != null) {
            CallOptions.checkConsistent(lease, ttl, policy);
        }
        this.filter = options.outcomeFilter() != null ? options.outcomeFilter() : parts.outcomeFilter();
        this.recorder = new Recorder(parts, key, ttl, this::emit, filter);
    }

    /** The key this call is for. */
    IdempotencyKey key() {
        return key;
    }

    /**
     * The lease and TTL of this call's next claim: the call's lease (see {@link #claimLease()}), kept as
     * the lease of the latest claim.
     */
    Duration nextClaimLease() {
        Duration leaseNow = claimLease();
        claimedLease = leaseNow;
        return leaseNow;
    }

    /** The TTL this call's records live. */
    Duration ttl() {
        return ttl;
    }

    /**
     * The fingerprint this call claims under: the request's, or its older version a record of the key
     * holds (taken before keyed fingerprints were turned on, or under a rotated secret), once the
     * request is known to match it.
     */
    byte[] claimedUnder(byte[] fingerprint) {
        return reconciled != null ? reconciled : fingerprint;
    }

    /**
     * After a claim sent under {@code used} met a record of another fingerprint: the record's older
     * version of the request's fingerprint if they match and the key must be claimed again under it
     * (so the claim may take it over; a completed record is replayed as it is), else null.
     */
    byte[] reclaimUnder(ClaimResult result, byte[] used) {
        return reconcileClaim(result, used) ? reconciled : null;
    }

    /**
     * Whether a claim that met a record of another fingerprint must be sent again under the
     * record's older version of the request's fingerprint (then {@code reconciled} holds it).
     */
    private boolean reconcileClaim(ClaimResult result, byte[] used) {
        if (reconciled == null && !result.claimed() && !result.record().hasFingerprint(used)) {
            byte[] older = parts.fingerprinter().underVersionOf(result.record().fingerprint(), key, request,
                    options.excludedSet());
            if (older != null && result.record().hasFingerprint(older)) {
                reconciled = older;
                return result.record().state() != RecordState.COMPLETED;
            }
        }
        return false;
    }

    /**
     * The lease to claim with: the call's lease, or, with a deadline, the time the caller has left
     * if that is shorter, but never less than the engine's {@code minBudgetLease}. A worker that
     * dies then blocks the key only about as long as its caller waits; a live one keeps the key
     * through a heartbeat ({@link #heartbeat}) that renews this shorter lease while the work runs.
     */
    private Duration claimLease() {
        if (deadline == null) {
            return lease;
        }
        long nanos = Math.max(deadline.remainingNanos(), parts.minBudgetLease().toNanos());
        if (nanos >= lease.toNanos()) {
            return lease;
        }
        // Stores count whole milliseconds: rounded up, so the lease is never shorter than promised.
        return Duration.ofMillis(Math.max(1, (nanos + 999_999) / 1_000_000));
    }

    /** Whether the caller's deadline has passed. */
    boolean spent() {
        return deadline != null && deadline.isExpired();
    }

    /** Refuses the call if the caller's deadline passed before the claim: nothing is stored. */
    void refuseIfSpent() {
        if (spent()) {
            emit(Type.DEADLINE_EXCEEDED, 0);
            throw new DeadlineExceededException(key, false);
        }
    }

    /**
     * The caller's deadline passed while {@code claim} was being won: gives the claim back before any
     * work runs (released, or handed back if its journal holds steps, so they stay bound to this
     * request) and returns the answer. A give-back the store refuses leaves the claim to lapse.
     */
    CompletableFuture<RuntimeException> refuseClaimed(ClaimResult claim, StoreWrites writes) {
        StoredRecord record = claim.record();
        DeadlineExceededException refused = new DeadlineExceededException(key, true);
        CompletableFuture<Boolean> given = StepJournal.holdsSteps(record.journal())
                ? recorder.handBack(refused, record.fencingToken(), record.attempt(), writes)
                : recorder.release(refused, record.fencingToken(), record.attempt(), writes);
        return StoreWrites.then(given, (ok, e) -> {
            emit(Type.DEADLINE_EXCEEDED, record.attempt());
            return e != null ? Recorder.failed(e) : CompletableFuture.completedFuture(refused);
        });
    }

    /**
     * Hands back a won claim whose journal cannot be read (see {@link Verdict#unreadable}): its steps'
     * effects happened, only their record is unreadable, so the work does not run and every retry
     * gets the same answer until the journal's key is provided again. Completes with the answer.
     */
    CompletableFuture<RuntimeException> handBackUnreadable(ClaimResult claim, OutcomeUnreadableException e,
            StoreWrites writes) {
        StoredRecord record = claim.record();
        return StoreWrites.then(recorder.handBack(e, record.fencingToken(), record.attempt(), writes),
                (ok, failure) -> failure != null ? Recorder.failed(failure) : CompletableFuture.completedFuture(e));
    }

    /** Binds the caller's deadline to this thread while the work starts or runs; null if there is none. */
    Deadline.Scope bindDeadline() {
        return deadline == null ? null : deadline.bind();
    }

    /** Whether a duplicate of this call waits for an in-progress key (and so shares its polls). */
    boolean waits() {
        return policy.waits();
    }

    /** The request's fingerprint under this call's operation and exclusions. */
    byte[] fingerprint(Object request) {
        this.request = request;
        return parts.fingerprinter().fingerprint(key.operation(), request, options.excludedSet());
    }

    /** Whether {@code recorded} is this request's fingerprint, in the current version or the one reconciled. */
    private boolean matches(byte[] recorded, byte[] fingerprint) {
        return Arrays.equals(recorded, fingerprint) || (reconciled != null && Arrays.equals(recorded, reconciled));
    }

    /**
     * Whether {@code recorded}, another fingerprint than the request's, is the request's fingerprint in
     * the older version the record was claimed under; then later claims of this call are sent under it.
     * Whichever claim read the record (this call's own, or another waiter's shared poll), it is the
     * same request.
     */
    private boolean reconcile(byte[] recorded) {
        if (reconciled != null) {
            return false;
        }
        byte[] older = parts.fingerprinter().underVersionOf(recorded, key, request, options.excludedSet());
        if (older == null || !Arrays.equals(recorded, older)) {
            return false;
        }
        reconciled = older;
        return true;
    }

    /** The near cache's answer for this key (a replay, or a thrown {@link KeyReusedException}), or null. */
    Result<T> fromNearCache(byte[] fingerprint) {
        NearCache cache = parts.nearCache();
        if (cache == null) {
            return null;
        }
        NearCache.Entry hit = cache.get(key);
        if (hit == null) {
            return null;
        }
        if (!Arrays.equals(hit.fingerprint(), fingerprint)) {
            byte[] older = parts.fingerprinter().underVersionOf(hit.fingerprint(), key, request, options.excludedSet());
            if (older == null || !Arrays.equals(hit.fingerprint(), older)) {
                emit(Type.KEY_REUSED, hit.attempt());
                throw new KeyReusedException(key);
            }
        }
        return replay(hit.outcome(), hit.fingerprint(), hit.attempt(), null);
    }

    /** How long one call has waited for an in-progress duplicate, measured on the ticker. */
    final class Waiting {
        // Ticker readings have an arbitrary origin: only differences are compared.
        private final long start = parts.ticker().read();
        private int poll;
        private boolean conflictReported;
    }

    /**
     * What one claim decided: the key is this call's ({@link #claimed()}), or the stored outcome
     * answers ({@code replay}), or the call claims again after {@code pauseMillis}. Blocking
     * and asynchronous drivers act on it alike; only how they pause differs.
     */
    static final class Verdict<T> {
        private static final Verdict<?> CLAIMED = new Verdict<>(null, 0, null, null, null);

        final Result<T> replay;
        final long pauseMillis;
        /** The key was won but its journal cannot be read: hand it back unrun, then fail with this. */
        final OutcomeUnreadableException unreadable;
        private final IdempotencyKey key;
        private final Duration hint;

        private Verdict(Result<T> replay, long pauseMillis, IdempotencyKey key, Duration hint,
                OutcomeUnreadableException unreadable) {
            this.replay = replay;
            this.pauseMillis = pauseMillis;
            this.key = key;
            this.hint = hint;
            this.unreadable = unreadable;
        }

        /** Whether the key is this call's: run the work. */
        boolean claimed() {
            return this == CLAIMED;
        }

        /** The 409 a caller gets if its pause is cut short. */
        RequestInProgressException conflict() {
            return new RequestInProgressException(key, hint);
        }
    }

    /**
     * Reads one claim's answer: the key won (run the work), a replay, or a pause before claiming
     * again; throws the answers that end the call ({@link KeyReusedException},
     * {@link RequestInProgressException}, a replayed failure).
     */
    @SuppressWarnings("unchecked")
    Verdict<T> judge(ClaimResult claim, byte[] fingerprint, Waiting waiting, long beforeClaim) {
        StoredRecord record = claim.record();
        if (claim.claimed()) {
            if (claim.status() == ClaimResult.Status.TAKEN_OVER) {
                emit(Type.LEASE_TAKEN_OVER, record.attempt());
            }
            try {
                claimedJournal = openJournal(record);
            } catch (OutcomeUnreadableException e) {
                return new Verdict<>(null, 0, null, null, e);
            }
            return (Verdict<T>) Verdict.CLAIMED;
        }
        if (!matches(record.fingerprint(), fingerprint) && !reconcile(record.fingerprint())) {
            emit(Type.KEY_REUSED, record.attempt());
            throw new KeyReusedException(key);
        }
        switch (record.state()) {
            case COMPLETED:
                // Both instants are on the store's clock, so the age and the time left are right
                // whatever the engine's clock says.
                if (parts.nearCache() != null) {
                    // Counted from before the claim was sent: the answer's time in transit cannot
                    // keep the entry past the record.
                    parts.nearCache().put(key, record.fingerprint(), record.outcome(), beforeClaim,
                            timeLeft(claim.storeTime(), record.expiresAt()), record.attempt());
                }
                Duration age = parts.listener() == IdempotencyListener.NONE
                        ? null : nonNegative(Duration.between(record.createdAt(), claim.storeTime()));
                return new Verdict<>(replay(record.outcome(), record.fingerprint(), record.attempt(), age), 0, null,
                        null, null);
            case IN_PROGRESS:
                // Once per call, not per poll, so metrics count calls that met a conflict.
                if (!waiting.conflictReported) {
                    waiting.conflictReported = true;
                    emit(Type.IN_PROGRESS_CONFLICT, record.attempt());
                }
                Duration leaseLeft = nonNegative(Duration.between(claim.storeTime(), record.leaseExpiresAt()));
                Duration hint = min(parts.retryAfterHint(), leaseLeft);
                long waitLeft = policy.maxWait().toNanos() - (parts.ticker().read() - waiting.start);
                if (deadline != null) {
                    // Answer while the caller still listens, not after it gave up.
                    waitLeft = Math.min(waitLeft, deadline.remainingNanos());
                }
                if (!policy.waits() || waitLeft <= 0) {
                    throw new RequestInProgressException(key, hint);
                }
                return new Verdict<>(null, pauseMillis(waiting.poll++, leaseLeft, waitLeft), key, hint, null);
            default:
                throw new StoreUnavailableException("store returned a " + record.state()
                        + " record for " + key + " without letting the claim win it; the store is broken", null,
                        false);
        }
    }

    private long pauseMillis(int poll, Duration leaseLeft, long waitLeftNanos) {
        long ceiling = PollSchedule.intervalNanos(poll) / 1_000_000;
        // Equal jitter: never zero (no busy loop), still spreads a herd of waiters.
        long delay = ceiling / 2 + (long) (parts.random().nextDouble() * (ceiling / 2 + 1));
        // Wake just after the lease lapses if that comes first, so a crashed holder is taken over promptly.
        delay = Math.min(delay, leaseLeft.toMillis() + 1);
        long waitLeftMillis = (waitLeftNanos + 999_999) / 1_000_000;
        return Math.max(1, Math.min(delay, waitLeftMillis));
    }

    /** The journal a won claim hands over, decrypted; one that cannot be read is logged and thrown. */
    private byte[] openJournal(StoredRecord claimed) {
        byte[] journal = claimed.journal();
        if (journal == null) {
            return null;
        }
        try {
            return parts.sealer().open(Sealer.Part.JOURNAL, key, claimed.fingerprint(), journal);
        } catch (OutcomeUnreadableException e) {
            LOG.log(Level.WARNING, "the step journal of {0} cannot be read ({1}); the key is handed back and the work"
                    + " does not run", key.digest(), e.reason());
            throw e;
        }
    }

    /** A stored outcome in the clear; {@code fingerprint} is the record's. */
    byte[] open(byte[] stored, byte[] fingerprint) {
        try {
            return parts.sealer().open(Sealer.Part.OUTCOME, key, fingerprint, stored);
        } catch (OutcomeUnreadableException e) {
            // A record stored in clear names no key id: say only why, not "key id null".
            String why = e.keyId() == null ? e.reason().toString() : e.reason() + ", key id " + e.keyId();
            LOG.log(Level.WARNING, "the stored outcome of {0} cannot be read ({1}); the work does not run again",
                    key.digest(), why);
            throw e;
        }
    }

    private Result<T> replay(byte[] stored, byte[] fingerprint, int attempt, Duration recordAge) {
        byte[] outcome = open(stored, fingerprint);
        switch (parts.codec().kind(outcome)) {
            case FAILURE: {
                String[] failure = parts.codec().decodeFailure(outcome);
                emit(Type.REPLAY, attempt, recordAge);
                throw new ReplayedFailureException(key, failure[0], failure[1]);
            }
            case NOT_STORED: {
                String reason = parts.codec().decodeNotStored(outcome);
                emit(Type.REPLAY, attempt, recordAge);
                throw new OutcomeNotStoredException(key, reason, true, null);
            }
            default:
                break;
        }
        emit(Type.REPLAY, attempt, recordAge);
        // Decoded when the caller reads the value: one who only forwards it, or never reads it, pays nothing.
        return new Result<>(rebuild(outcome), this::decode, attempt);
    }

    /** What the outcome filter rebuilds of a stored success, for a replay. */
    private byte[] rebuild(byte[] outcome) {
        if (filter == null || parts.codec().kind(outcome) == OutcomeCodec.Kind.BYTES) {
            return outcome;
        }
        try {
            return parts.codec().rebuild(filter, key, outcome);
        } catch (Exception e) {
            throw new OutcomeUnreadableException(key, OutcomeUnreadableException.Reason.REBUILD_FAILED, null,
                    "the outcome filter could not rebuild the result: " + e, e);
        }
    }

    @SuppressWarnings("unchecked")
    private T decode(byte[] outcome) {
        return (T) parts.decodeSuccess(outcome, type);
    }

    /**
     * The context of the work under the claim won at {@code beforeClaim} (a ticker reading taken
     * before the claim call); steps may run only in {@code owner}, or in any thread (one at a
     * time) if it is null.
     */
    StepContext begin(ClaimResult claim, long beforeClaim, Thread owner) {
        // The lease as time left on the ticker: counted from before the claim was sent, it can
        // only end early, never late, whatever the store's clock says about the engine's.
        long leaseEnd = beforeClaim + timeLeft(claim.storeTime(), claim.record().leaseExpiresAt());
        return new Context(claim.record(), claimedJournal, leaseEnd, owner);
    }

    /** The lease of this call's latest claim (the per-call override or the engine's, or shorter by the deadline). */
    Duration lease() {
        return claimedLease;
    }

    /** The call's own lease (the per-call override or the engine's), whatever a deadline made of a claim's. */
    Duration callLease() {
        return lease;
    }

    /** Whether the result type is {@code Object}: the untyped call, whose first caller gets plain JSON values too. */
    boolean untyped() {
        return type.getRawClass() == Object.class;
    }

    /** The writes that end this call's key, and what they tell. */
    Recorder recorder() {
        return recorder;
    }

    /**
     * Gives back a claim whose work never started because its caller went away while the claim
     * was in the store: as after a transient failure (released, or handed back if its journal
     * holds steps), so a duplicate claims it at once and nothing ran twice.
     */
    CompletableFuture<Void> giveBackUnstarted(ClaimResult claim, long beforeClaim, StoreWrites writes) {
        StepContext ctx = begin(claim, beforeClaim, null);
        ctx.close();
        return giveBack(ctx, new java.util.concurrent.CancellationException("the caller of " + key
                + " went away before its work started"), writes)
                .whenComplete((v, e) -> parts.polls().forget(key));
    }

    /** The writes that end this call's key, through {@code port} (the call's way to the store). */
    StoreWrites writes(StorePort port) {
        return new StoreWrites(port, key, parts.completeAttempts());
    }

    /**
     * How work that completes the record itself ({@link AtomicWork}) ends, once it returned
     * {@code value}: checked against the record, in the blocking driver that runs such work.
     */
    interface SelfCompleted<T> {
        CompletableFuture<Result<T>> check(T value, long token, int attempt, byte[] fingerprint);
    }

    /**
     * Decides how the key ends once the work has returned {@code value} or thrown {@code failure}:
     * the one place that reads the execution's state, so both drivers end the key alike through
     * {@code writes}. Completes with the result, or fails with the caller's answer.
     *
     * @param selfCompleted how work that completed the record itself ends; null for other work
     */
    CompletableFuture<Result<T>> finish(StepContext ctx, T value, Throwable failure, StoreWrites writes,
            SelfCompleted<T> selfCompleted) {
        // The record's fingerprint binds what is stored: the request's, or its older version reconciled.
        byte[] fingerprint = ctx.claimedFingerprint();
        long token = ctx.fencingToken();
        int attempt = ctx.attempt();
        StepNotJournaledException notJournaled = ctx.stepNotJournaled();
        if (notJournaled != null) {
            // A step ran but cannot be journaled: the engine's own record decides, not whatever the
            // work made of the step's exception (swallowed, translated, or a value returned anyway).
            if (failure != null && failure != notJournaled) {
                notJournaled.addSuppressed(failure);
            }
            Throwable work = failure;
            return recorder.storeFinalFailure(notJournaled, notJournaled, token, attempt, fingerprint, writes)
                    .thenCompose(answer -> {
                        if (work instanceof Error) {
                            work.addSuppressed(answer);
                            return Recorder.failed(work);
                        }
                        return Recorder.failed(answer);
                    });
        }
        if (failure == null) {
            failure = ctx.unreplayedSteps();
        }
        if (failure instanceof OutcomeNotStoredException && declaredNotStored((OutcomeNotStoredException) failure)) {
            // The work ran and says its outcome cannot be stored (idem-reactor's Flux past the limit).
            return recorder.unstorable(token, attempt, fingerprint, ((OutcomeNotStoredException) failure).reason(),
                    failure, writes).thenCompose(Recorder::failed);
        }
        if (failure == null) {
            return selfCompleted != null ? selfCompleted.check(value, token, attempt, fingerprint)
                    : complete(value, token, attempt, fingerprint, writes);
        }
        if (failure instanceof LeaseLostException && ownLease((LeaseLostException) failure, token)) {
            emit(Type.LEASE_LOST, attempt);
            return Recorder.failed(failure);
        }
        if (failure instanceof Error) {
            Throwable error = failure;
            return giveBack(ctx, error, writes).thenCompose(v -> Recorder.failed(error));
        }
        Exception e = (Exception) failure;
        return failed(ctx, e, fingerprint, writes).thenCompose(Recorder::failed);
    }

    private boolean declaredNotStored(OutcomeNotStoredException e) {
        // Not one replayed from another record, nor another key's (a nested call's) marker.
        return !e.replayed() && e.key().equals(key);
    }

    private boolean ownLease(LeaseLostException e, long token) {
        // A nested call for another key (or another claim) that lost its lease is a failure of this work.
        return e.key().equals(key) && e.fencingToken() == token;
    }

    private CompletableFuture<Result<T>> complete(T value, long token, int attempt, byte[] fingerprint,
            StoreWrites writes) {
        // From here on the work has run: the key is never freed, whatever happens to its outcome.
        Recorder.Encoded outcome = recorder.encodeSuccess(value, fingerprint);
        if (!outcome.storable()) {
            return recorder.unstorable(token, attempt, fingerprint, outcome.notStored(), outcome.cause(), writes)
                    .thenCompose(Recorder::failed);
        }
        CompletableFuture<Boolean> written = recorder.completeSuccess(outcome.stored(), token, attempt, fingerprint,
                writes);
        if (StoreWrites.succeeded(written)) {
            return CompletableFuture.completedFuture(new Result<>(plain(value, outcome.plain()), false,
                    written.join(), attempt));
        }
        return written.thenApply(stored -> new Result<>(plain(value, outcome.plain()), false, stored, attempt));
    }

    /**
     * The untyped {@code execute} answers plain JSON values (Map, List, String, Number,
     * Boolean, null) on replay, so the first call gets the same shape, decoded from the
     * encoded result ({@code outcome}, in the clear and unfiltered).
     */
    T plain(T value, byte[] outcome) {
        return type.getRawClass() == Object.class && outcome != null ? decode(outcome) : value;
    }

    /** The work failed with {@code e}: store it as final, or give the key back for a retry. */
    private CompletableFuture<RuntimeException> failed(StepContext ctx, Exception e, byte[] fingerprint,
            StoreWrites writes) {
        FailureDecision decision;
        try {
            decision = parts.classifier().classify(e);
        } catch (RuntimeException classifierFailure) {
            LOG.log(Level.WARNING, "failure classifier threw; treating the failure as transient", classifierFailure);
            decision = FailureDecision.transientFailure();
        }
        if (decision == null || !decision.isFinal()) {
            return giveBack(ctx, e, writes).thenApply(v ->
                    e instanceof RuntimeException ? (RuntimeException) e : new WorkFailedException(e));
        }
        // The first caller gets what every retry will get: the stored code and message, 422.
        FinalFailureException answer = new FinalFailureException(key, decision.code(), decision.message(), e);
        return recorder.storeFinalFailure(answer, e, ctx.fencingToken(), ctx.attempt(), fingerprint, writes);
    }

    /**
     * Gives the key back after a transient failure, so a retry runs again, unless a step's
     * effect may have happened without its journal write being known to land: then the claim
     * is kept until its lease lapses (a late write must not be outrun by a retry), as after a
     * completion the store failed. A key whose journal may hold steps is handed back rather
     * than released, so its fingerprint stays bound (see {@link Recorder#handBack}).
     */
    private CompletableFuture<Void> giveBack(StepContext ctx, Throwable failure, StoreWrites writes) {
        int attempt = ctx.attempt();
        RuntimeException unjournaled = ctx.unjournaled();
        if (unjournaled != null) {
            if (unjournaled != failure) {
                failure.addSuppressed(unjournaled);
            }
            LOG.log(Level.WARNING, "a step of {0} ran but its journal write failed ({1}); the claim is kept until"
                    + " its lease lapses, then the step runs again with the same downstream key", key.digest(),
                    unjournaled.getMessage());
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Boolean> given = ctx.journalMayHoldSteps()
                ? recorder.handBack(failure, ctx.fencingToken(), attempt, writes)
                : recorder.release(failure, ctx.fencingToken(), attempt, writes);
        return given.thenAccept(ok -> {
            if (ok) {
                emit(Type.RELEASED_ON_TRANSIENT_FAILURE, attempt);
            }
        });
    }

    void emit(Type type, int attempt) {
        emit(type, attempt, null);
    }

    private void emit(Type type, int attempt, Duration recordAge) {
        if (parts.listener() == IdempotencyListener.NONE) {
            return;
        }
        try {
            parts.listener().onEvent(new IdempotencyEvent(type, key.scope(), key.operation(), attempt,
                    Duration.ofNanos(parts.ticker().read() - started), key.key(), recordAge));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "idempotency listener threw on " + type, e);
        }
    }

    /** Nanoseconds from {@code now} to {@code until}, both on the store's clock; never negative. */
    static long timeLeft(Instant now, Instant until) {
        // Without a Duration on the way (this runs on every claim); overflow still throws, as
        // Duration.toNanos() did.
        long seconds = until.getEpochSecond() - now.getEpochSecond();
        if (seconds < 0) {
            return 0;
        }
        return Math.max(0, Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L),
                until.getNano() - now.getNano()));
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    static String downstreamKey(IdempotencyKey key) {
        MessageDigest sha = dev.idem.engine.internal.Fingerprinter.sha256();
        sha.update("idem-downstream/v1\0".getBytes(StandardCharsets.US_ASCII));
        sha.update(key.scope().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(key.operation().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(key.key().getBytes(StandardCharsets.US_ASCII));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
    }

    private final class Context extends StepContext {
        private final StoredRecord claim;
        private volatile Instant leaseDeadline;
        // The lease's end on the engine's ticker; a step renews a lease that has run out by it.
        private volatile long leaseEnd;
        private String downstream;
        Context(StoredRecord claim, byte[] journal, long leaseEnd, Thread owner) {
            super(parts, key, claim, journal, claimedLease, owner);
            this.claim = claim;
            this.leaseDeadline = claim.leaseExpiresAt();
            this.leaseEnd = leaseEnd;
        }

        @Override
        public IdempotencyKey key() {
            return key;
        }

        @Override
        public long fencingToken() {
            return claim.fencingToken();
        }

        @Override
        public int attempt() {
            return claim.attempt();
        }

        @Override
        public Instant leaseDeadline() {
            return leaseDeadline;
        }

        @Override
        boolean leaseRanOut() {
            return parts.ticker().read() - leaseEnd >= 0;
        }

        @Override
        public Optional<Deadline> deadline() {
            return Optional.ofNullable(deadline);
        }

        @Override
        public boolean reachesPast(Duration renewal) {
            // The work's own extendLease may reach further than a heartbeat's renewal: never cut it short.
            return leaseEnd - parts.ticker().read() > renewal.toNanos();
        }

        @Override
        public void renewed(long sentAt, Duration renewal, Instant until) {
            leaseDeadline = until;
            leaseEnd = sentAt + renewal.toNanos();
        }

        @Override
        public String downstreamKey() {
            if (downstream == null) {
                downstream = Execution.downstreamKey(key);
            }
            return downstream;
        }

        @Override
        public Instant extendLease(Duration extension) {
            IdempotencyEngine.positive("lease", extension);
            long before = parts.ticker().read();
            Instant deadline = parts.store().extendLease(key, claim.fencingToken(), extension)
                    .orElseThrow(() -> new LeaseLostException(key, claim.fencingToken()));
            leaseDeadline = deadline;
            leaseEnd = before + extension.toNanos();
            return deadline;
        }

        @Override
        public String toString() {
            return "ExecutionContext[" + key + ", attempt " + claim.attempt() + "]";
        }
    }
}
