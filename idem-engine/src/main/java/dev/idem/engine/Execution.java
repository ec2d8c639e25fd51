package dev.idem.engine;

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
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.StepJournal;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * One call's settings, state and decisions, made without a store: the request's fingerprint and
 * its reconciliation with a record claimed under an older fingerprint version, the lease a claim is
 * sent with, the verdict on a record read by any path ({@link #judge}: the call's own claim,
 * another waiter's shared poll, the near cache), and how the key ends once the work returned or
 * threw ({@link #finish}). A decision is a value ({@link Verdict}, {@link Ending}); the drivers
 * ({@link BlockingCall}, {@link AsyncCall}) carry it out through their way to the store, and apply
 * what it notes besides (the call's state, events, the near cache, warnings) through
 * {@link #apply(Verdict)} and {@link #apply(Ending)}, the only places these happen. Every duration
 * is measured on the engine's {@link dev.idem.api.time.Ticker}; no wall clock is read.
 *
 * <p>A caller's {@link Deadline} ({@link CallOptions#deadline()}) is checked before the claim and
 * once the claim is won, bounds a duplicate's wait, and may shorten the claim's lease
 * ({@link #nextClaimLease()}); once the work has started it stops nothing.
 */
final class Execution<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final Object request;
    private final CallOptions options;
    private final Duration lease;
    private final Duration ttl;
    private final InProgressPolicy policy;
    private final Deadline deadline;
    private final Recorder recorder;
    // When the call started, on the ticker (an arbitrary origin: only differences are compared): its
    // events' elapsed time, and how long it has waited for an in-progress duplicate.
    private final long started;
    // The call's state, changed only by nextClaimLease() and apply(Verdict). A driver hands the call
    // from one thread to the next through a queue or a completed stage, never two at once.
    private volatile Duration claimedLease;
    private volatile byte[] reconciled;
    private int polls;
    private boolean conflictReported;

    Execution(EngineParts parts, IdempotencyKey key, com.fasterxml.jackson.databind.JavaType type,
            CallOptions options, Object request) {
        this.parts = parts;
        this.key = key;
        this.request = request;
        this.options = options;
        this.lease = options.lease() != null ? options.lease() : parts.lease();
        this.ttl = options.ttl() != null ? options.ttl() : parts.ttl();
        this.policy = options.inProgress() != null ? options.inProgress() : parts.inProgress();
        this.deadline = options.deadline();
        this.claimedLease = lease;
        this.started = parts.ticker().read();
        // The engine's own pair was checked at build time; only overrides need checking here.
        if (options.lease() != null || options.ttl() != null || options.inProgress() != null) {
            CallOptions.checkConsistent(lease, ttl, policy);
        }
        this.recorder = new Recorder(parts, key, type,
                options.outcomeFilter() != null ? options.outcomeFilter() : parts.outcomeFilter());
    }

    /** The key this call is for. */
    IdempotencyKey key() {
        return key;
    }

    /** The TTL this call's records live. */
    Duration ttl() {
        return ttl;
    }

    /** The call's outcome as the record holds it. */
    Recorder recorder() {
        return recorder;
    }

    /** The request's fingerprint under this call's operation and exclusions. */
    byte[] fingerprint() {
        return parts.fingerprinter().fingerprint(key.operation(), request, options.excludedSet());
    }

    /** Whether a duplicate of this call waits for an in-progress key (and so shares its polls). */
    boolean waits() {
        return policy.waits();
    }

    /** Whether the caller's deadline has passed. */
    boolean spent() {
        return deadline != null && deadline.isExpired();
    }

    /** Binds the caller's deadline to this thread while the work starts or runs; null if there is none. */
    Deadline.Scope bindDeadline() {
        return deadline == null ? null : deadline.bind();
    }

    /**
     * The lease of this call's next claim, kept as the lease of the latest claim: the call's lease,
     * or, with a deadline, the time the caller has left if that is shorter, but never less than the
     * engine's {@code minBudgetLease}. A worker that dies then blocks the key only about as long as
     * its caller waits; a live one keeps the key through a heartbeat that renews this shorter lease
     * while the work runs.
     */
    Duration nextClaimLease() {
        Duration next = lease;
        if (deadline != null) {
            long nanos = Math.max(deadline.remainingNanos(), parts.minBudgetLease().toNanos());
            if (nanos < lease.toNanos()) {
                // Stores count whole milliseconds: rounded up, so the lease is never shorter than promised.
                next = Duration.ofMillis(Math.max(1, (nanos + 999_999) / 1_000_000));
            }
        }
        claimedLease = next;
        return next;
    }

    /** The lease of this call's latest claim (the per-call override or the engine's, or shorter by the deadline). */
    Duration lease() {
        return claimedLease;
    }

    /** The call's own lease (the per-call override or the engine's), whatever a deadline made of a claim's. */
    Duration callLease() {
        return lease;
    }

    /**
     * The fingerprint this call claims under: the request's, or its older version a record of the key
     * holds (taken before keyed fingerprints were turned on, or under a rotated secret), once the
     * request is known to match it.
     */
    byte[] claimedUnder(byte[] fingerprint) {
        byte[] older = reconciled;
        return older != null ? older : fingerprint;
    }

    /**
     * After a claim sent under {@code used} met an in-progress record of another fingerprint: the
     * record's older version of the request's fingerprint if they match, to claim the key again
     * under at once (so the claim may take it over), else null. A completed record needs no second
     * claim: {@link #judge} replays it.
     */
    byte[] reclaimUnder(ClaimResult result, byte[] used) {
        StoredRecord record = result.record();
        if (reconciled != null || result.claimed() || record.state() == RecordState.COMPLETED
                || record.hasFingerprint(used)) {
            return null;
        }
        byte[] older = parts.fingerprinter().underVersionOf(record.fingerprint(), key, request, options.excludedSet());
        return older != null && record.hasFingerprint(older) ? older : null;
    }

    /**
     * What the call does before it claims: nothing stored if the caller's deadline has passed, the
     * near cache's answer if it holds the key (a replay, or {@link KeyReusedException}); null to claim.
     */
    Verdict<T> beforeClaim(byte[] fingerprint) {
        if (spent()) {
            return Verdict.answer(new DeadlineExceededException(key, false), Type.DEADLINE_EXCEEDED, 0, null);
        }
        NearCache cache = parts.nearCache();
        NearCache.Entry hit = cache == null ? null : cache.get(key);
        if (hit == null) {
            return null;
        }
        if (!Arrays.equals(hit.fingerprint(), fingerprint) && olderVersion(hit.fingerprint()) == null) {
            return Verdict.answer(new KeyReusedException(key), Type.KEY_REUSED, hit.attempt(), null);
        }
        return replay(hit.outcome(), hit.fingerprint(), hit.attempt(), null, null, 0, 0, null);
    }

    /**
     * The verdict on one claim's answer, whichever path read it (this call's own claim, or another
     * waiter's shared poll seen as the record it found): the key won (run the work, or give back one
     * whose journal cannot be read), a replay, an answer that ends the call
     * ({@link KeyReusedException}, {@link RequestInProgressException}, a replayed failure), or a pause
     * before claiming again. A record of another fingerprint is this request's if it holds the
     * request's fingerprint in the older version it was claimed under; from then on the call claims
     * under that one. Reads no store and changes nothing: the driver applies the verdict.
     *
     * @param sentAt the ticker before the claim was sent (for a shared poll, before its question
     *     left): a near-cache entry made of the answer is counted from it
     */
    Verdict<T> judge(ClaimResult claim, byte[] fingerprint, long sentAt) {
        StoredRecord record = claim.record();
        if (claim.claimed()) {
            Type takenOver = claim.status() == ClaimResult.Status.TAKEN_OVER ? Type.LEASE_TAKEN_OVER : null;
            byte[] journal = record.journal();
            if (journal == null) {
                return takenOver == null ? Verdict.run() : Verdict.run(null, takenOver, record.attempt());
            }
            try {
                journal = parts.sealer().open(Sealer.Part.JOURNAL, key, record.fingerprint(), journal);
            } catch (OutcomeUnreadableException e) {
                // Its steps' effects happened, only their record is unreadable: the work does not run,
                // and every retry gets the same answer until the journal's key is provided again.
                return Verdict.end(new Ending.GiveBack<>(key, true, record.fencingToken(), record.attempt(), e, e,
                        null, false), takenOver, record.attempt(), Ending.warning("the step journal of {0} cannot be"
                        + " read ({1}); the key is handed back and the work does not run", key, e.reason()));
            }
            return Verdict.run(journal, takenOver, record.attempt());
        }
        byte[] older = null;
        if (!matches(record.fingerprint(), fingerprint)) {
            older = olderVersion(record.fingerprint());
            if (older == null) {
                return Verdict.answer(new KeyReusedException(key), Type.KEY_REUSED, record.attempt(), null);
            }
        }
        switch (record.state()) {
            case COMPLETED:
                // Both instants are on the store's clock, so the age and the time left are right
                // whatever the engine's clock says.
                Duration age = parts.listener() == IdempotencyListener.NONE
                        ? null : nonNegative(Duration.between(record.createdAt(), claim.storeTime()));
                // Counted from before the claim was sent: the answer's time in transit cannot keep the
                // entry past the record.
                return parts.nearCache() == null ? replay(record.outcome(), record.fingerprint(), record.attempt(), age,
                        null, 0, 0, older)
                        : replay(record.outcome(), record.fingerprint(), record.attempt(), age, record, sentAt,
                                timeLeft(claim.storeTime(), record.expiresAt()), older);
            case IN_PROGRESS:
                // Once per call, not per poll, so metrics count calls that met a conflict.
                Type conflict = conflictReported ? null : Type.IN_PROGRESS_CONFLICT;
                Duration leaseLeft = nonNegative(Duration.between(claim.storeTime(), record.leaseExpiresAt()));
                Duration hint = parts.retryAfterHint().compareTo(leaseLeft) <= 0 ? parts.retryAfterHint() : leaseLeft;
                long waitLeft = policy.maxWait().toNanos() - (parts.ticker().read() - started);
                if (deadline != null) {
                    // Answer while the caller still listens, not after it gave up.
                    waitLeft = Math.min(waitLeft, deadline.remainingNanos());
                }
                if (!policy.waits() || waitLeft <= 0) {
                    return Verdict.answer(new RequestInProgressException(key, hint), conflict, record.attempt(), older);
                }
                return Verdict.pause(PollSchedule.pauseMillis(polls, parts.random().nextDouble(), leaseLeft.toMillis(),
                        waitLeft), hint, conflict, record.attempt(), older);
            default:
                return Verdict.answer(new StoreUnavailableException("store returned a " + record.state()
                        + " record for " + key + " without letting the claim win it; the store is broken", null,
                        false), null, record.attempt(), null);
        }
    }

    /** Whether {@code recorded} is this request's fingerprint, in the current version or the one reconciled. */
    private boolean matches(byte[] recorded, byte[] fingerprint) {
        byte[] older = reconciled;
        return Arrays.equals(recorded, fingerprint) || (older != null && Arrays.equals(recorded, older));
    }

    /**
     * {@code recorded}, another fingerprint than the request's, if it is the request's fingerprint in
     * the older version the record was claimed under (and none was reconciled yet); else null.
     */
    private byte[] olderVersion(byte[] recorded) {
        if (reconciled != null) {
            return null;
        }
        byte[] older = parts.fingerprinter().underVersionOf(recorded, key, request, options.excludedSet());
        return older != null && Arrays.equals(recorded, older) ? older : null;
    }

    /**
     * The verdict of a replay of {@code stored} (sealed under the record's {@code fingerprint}):
     * the result, decoded when the caller reads it, or the replayed failure; noted with the
     * {@link Type#REPLAY} event (and the record's age, if known), the record for the near cache
     * (if not null) and the reconciled fingerprint (if not null).
     */
    private Verdict<T> replay(byte[] stored, byte[] fingerprint, int attempt, Duration age, StoredRecord cached,
            long since, long left, byte[] older) {
        byte[] outcome;
        try {
            outcome = recorder.open(stored, fingerprint);
        } catch (OutcomeUnreadableException e) {
            return new Verdict<>(Verdict.Kind.ANSWER, null, e, null, 0, null, null, null, attempt, null, cached, since,
                    left, older, recorder.unreadable(e));
        }
        RuntimeException replayed;
        switch (parts.codec().kind(outcome)) {
            case FAILURE:
                String[] failure = parts.codec().decodeFailure(outcome);
                replayed = new ReplayedFailureException(key, failure[0], failure[1]);
                break;
            case NOT_STORED:
                replayed = new OutcomeNotStoredException(key, parts.codec().decodeNotStored(outcome), true, null);
                break;
            default:
                try {
                    // Decoded when the caller reads the value: one who only forwards it, or never reads it, pays nothing.
                    return new Verdict<>(Verdict.Kind.REPLAY, new Result<>(recorder.rebuild(outcome), recorder::decode,
                            attempt), null, null, 0, null, null, Type.REPLAY, attempt, age, cached, since, left, older,
                            null);
                } catch (OutcomeUnreadableException e) {
                    replayed = e;
                }
        }
        return new Verdict<>(Verdict.Kind.ANSWER, null, replayed, null, 0, null, null, Type.REPLAY, attempt, age, cached,
                since, left, older, null);
    }

    /**
     * Applies what {@code verdict} notes besides its answer: the call's state (the reconciled
     * fingerprint, its polls of a key in progress), the near-cache entry, the warning and the event.
     * Each driver calls it once for each verdict, before acting on it.
     */
    void apply(Verdict<T> verdict) {
        if (verdict.reconciled() != null) {
            reconciled = verdict.reconciled();
        }
        if (verdict.kind() == Verdict.Kind.PAUSE) {
            polls++;
        }
        if (verdict.event() == Type.IN_PROGRESS_CONFLICT) {
            conflictReported = true;
        }
        StoredRecord cached = verdict.cached();
        if (cached != null && parts.nearCache() != null) {
            parts.nearCache().put(key, cached.fingerprint(), cached.outcome(), verdict.cachedSince(),
                    verdict.cachedLeftNanos(), cached.attempt());
        }
        if (verdict.warning() != null) {
            LOG.log(Level.WARNING, verdict.warning());
        }
        if (verdict.event() != null) {
            emit(verdict.event(), verdict.attempt(), verdict.recordAge());
        }
    }

    /**
     * Applies what a step of the key's ending notes: for an {@link Ending.Answer}, a lost lease, its
     * event, the outcome this call stored for the near cache (the record lives a TTL from when the
     * store wrote it, which is after the answer's {@code cachedSince}) and its warning; for a write,
     * its event. Each driver calls it once for each step it reaches.
     */
    void apply(Ending<T> step) {
        if (!(step instanceof Ending.Answer)) {
            if (step.event() != null) {
                emit(step.event(), step.attempt(), null);
            }
            return;
        }
        Ending.Answer<T> answer = (Ending.Answer<T>) step;
        if (answer.leaseLost()) {
            emit(Type.LEASE_LOST, answer.attempt(), null);
        }
        if (answer.event() != null) {
            emit(answer.event(), answer.attempt(), null);
        }
        if (answer.cachedOutcome() != null && parts.nearCache() != null) {
            parts.nearCache().put(key, answer.cachedFingerprint(), answer.cachedOutcome(), answer.cachedSince(),
                    ttl.toNanos(), answer.attempt());
        }
        if (answer.warning() != null) {
            LOG.log(Level.WARNING, answer.warning());
        }
    }

    /**
     * The context of the work under the claim won at {@code beforeClaim} (a ticker reading taken
     * before the claim call), with the {@code journal} the claim handed over (decrypted); steps may
     * run only in {@code owner}, or in any thread (one at a time) if it is null.
     */
    StepContext begin(ClaimResult claim, long beforeClaim, Thread owner, byte[] journal) {
        // The lease as time left on the ticker: counted from before the claim was sent, it can
        // only end early, never late, whatever the store's clock says about the engine's.
        long leaseEnd = beforeClaim + timeLeft(claim.storeTime(), claim.record().leaseExpiresAt());
        return new Context(claim.record(), journal, leaseEnd, owner);
    }

    /**
     * How a claim won after the caller's deadline passed ends: given back before any work runs
     * (released, or handed back if its journal holds steps, so they stay bound to this request); a
     * give-back the store refuses leaves the claim to lapse.
     */
    Ending<T> refuse(ClaimResult claim) {
        StoredRecord record = claim.record();
        DeadlineExceededException refused = new DeadlineExceededException(key, true);
        return new Ending.GiveBack<>(key, StepJournal.holdsSteps(record.journal()), record.fencingToken(),
                record.attempt(), refused, refused, Type.DEADLINE_EXCEEDED, true);
    }

    /**
     * How a claim ends whose work never started because its caller went away while the claim was in
     * the store: as after a transient failure (released, or handed back if its {@code journal} holds
     * steps), so a duplicate claims it at once and nothing ran twice.
     */
    Ending<T> giveBackUnstarted(ClaimResult claim, byte[] journal) {
        StoredRecord record = claim.record();
        CancellationException gone = new CancellationException("the caller of " + key
                + " went away before its work started");
        return new Ending.GiveBack<>(key, StepJournal.holdsSteps(journal), record.fencingToken(), record.attempt(),
                gone, gone, Type.RELEASED_ON_TRANSIENT_FAILURE, false);
    }

    /**
     * How work that completes the record itself ({@link AtomicWork}) ends once it returned
     * {@code value}: checked against the record, in the blocking driver that runs such work.
     */
    interface SelfCompleted<T> {
        Ending<T> confirm(T value, long token, int attempt, byte[] fingerprint);
    }

    /**
     * How the key ends once the work has returned {@code value} or thrown {@code failure}, decided
     * from that and from the engine's own record of the work's steps: the outcome or a final failure
     * stored (the marker if it cannot be), the key released or handed back for a retry, or kept until
     * its lease lapses. Reads no store: the driver carries the ending out.
     *
     * @param selfCompleted how work that completed the record itself ends; null for other work
     */
    Ending<T> finish(StepContext ctx, T value, Throwable failure, SelfCompleted<T> selfCompleted) {
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
            return recorder.finalFailure(notJournaled, notJournaled, token, attempt, fingerprint,
                    failure instanceof Error ? (Error) failure : null);
        }
        if (failure == null) {
            failure = ctx.unreplayedSteps();
        }
        if (failure instanceof OutcomeNotStoredException && declaredNotStored((OutcomeNotStoredException) failure)) {
            // The work ran and says its outcome cannot be stored (idem-reactor's Flux past the limit).
            return recorder.marker(token, attempt, fingerprint, ((OutcomeNotStoredException) failure).reason(),
                    failure, null);
        }
        if (failure == null) {
            // From here on the work has run: the key is never freed, whatever happens to its outcome.
            return selfCompleted != null ? selfCompleted.confirm(value, token, attempt, fingerprint)
                    : recorder.complete(value, token, attempt, fingerprint);
        }
        if (failure instanceof LeaseLostException && ownLease((LeaseLostException) failure, token)) {
            return Ending.Answer.leaseLost(failure, null, attempt);
        }
        if (failure instanceof Error) {
            return giveBack(ctx, failure, failure);
        }
        Exception e = (Exception) failure;
        FailureDecision decision;
        try {
            decision = parts.classifier().classify(e);
        } catch (RuntimeException classifierFailure) {
            LOG.log(Level.WARNING, "failure classifier threw; treating the failure as transient", classifierFailure);
            decision = FailureDecision.transientFailure();
        }
        if (decision == null || !decision.isFinal()) {
            return giveBack(ctx, e, e instanceof RuntimeException ? e : new WorkFailedException(e));
        }
        // The first caller gets what every retry will get: the stored code and message, 422.
        FinalFailureException answer = new FinalFailureException(key, decision.code(), decision.message(), e);
        return recorder.finalFailure(answer, e, token, attempt, fingerprint, null);
    }

    private boolean declaredNotStored(OutcomeNotStoredException e) {
        // Not one replayed from another record, nor another key's (a nested call's) marker.
        return !e.replayed() && e.key().equals(key);
    }

    private boolean ownLease(LeaseLostException e, long token) {
        // A nested call for another key (or another claim) that lost its lease is a failure of this work.
        return e.key().equals(key) && e.fencingToken() == token;
    }

    /**
     * Gives the key back after a transient failure, so a retry runs again, unless a step's
     * effect may have happened without its journal write being known to land: then the claim
     * is kept until its lease lapses (a late write must not be outrun by a retry), as after a
     * completion the store failed. A key whose journal may hold steps is handed back rather
     * than released, so its fingerprint stays bound.
     */
    private Ending<T> giveBack(StepContext ctx, Throwable failure, Throwable answer) {
        RuntimeException unjournaled = ctx.unjournaled();
        if (unjournaled != null) {
            if (unjournaled != failure) {
                failure.addSuppressed(unjournaled);
            }
            return Ending.Answer.kept(answer, Ending.warning("a step of {0} ran but its journal write failed ({1}); the"
                    + " claim is kept until its lease lapses, then the step runs again with the same downstream key",
                    key, unjournaled.getMessage()));
        }
        return new Ending.GiveBack<>(key, ctx.journalMayHoldSteps(), ctx.fencingToken(), ctx.attempt(), failure,
                answer, Type.RELEASED_ON_TRANSIENT_FAILURE, false);
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
