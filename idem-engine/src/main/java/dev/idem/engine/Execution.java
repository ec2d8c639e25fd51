package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.NearCache;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;

/** One call of the engine: the state machine from fingerprint to result. */
final class Execution<T> {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    private static final Duration FIRST_POLL = Duration.ofMillis(10);
    private static final Duration MAX_POLL = Duration.ofMillis(500);
    private static final int MAX_REASON = 300;

    /** The work, plain or completing itself. */
    interface Runner<T> {
        T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception;

        boolean completesItself();
    }

    static <T> Runner<T> plain(Work<? extends T> work) {
        java.util.Objects.requireNonNull(work, "work");
        return new Runner<>() {
            @Override
            public T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception {
                return work.execute(ctx);
            }

            @Override
            public boolean completesItself() {
                return false;
            }
        };
    }

    static <T> Runner<T> atomic(AtomicWork<? extends T> work) {
        java.util.Objects.requireNonNull(work, "work");
        return new Runner<>() {
            @Override
            public T run(ExecutionContext ctx, AtomicWork.Completion completion) throws Exception {
                return work.executeAndComplete(ctx, completion);
            }

            @Override
            public boolean completesItself() {
                return true;
            }
        };
    }

    private final IdempotencyEngine engine;
    private final IdempotencyKey key;
    private final JavaType type;
    private final CallOptions options;
    private final Runner<? extends T> runner;
    private final Duration lease;
    private final Duration ttl;
    private final InProgressPolicy policy;
    private final long started;

    Execution(IdempotencyEngine engine, IdempotencyKey key, JavaType type, CallOptions options,
            Runner<? extends T> runner) {
        this.engine = engine;
        this.key = key;
        this.type = type;
        this.options = options;
        this.runner = runner;
        this.lease = options.lease() != null ? options.lease() : engine.lease;
        this.ttl = options.ttl() != null ? options.ttl() : engine.ttl;
        this.policy = options.inProgress() != null ? options.inProgress() : engine.inProgress;
        this.started = engine.listener == IdempotencyListener.NONE ? 0 : engine.ticker.read();
        // The engine's own pair was checked at build time; only overrides need checking here.
        if ((options.lease() != null || options.ttl() != null) && lease.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("lease (" + lease + ") must be shorter than ttl (" + ttl + ")");
        }
        if ((options.inProgress() != null || options.ttl() != null) && policy.maxWait().compareTo(ttl) > 0) {
            throw new IllegalArgumentException(
                    "inProgress wait (" + policy.maxWait() + ") must not exceed ttl (" + ttl + ")");
        }
    }

    Result<T> run(Object request) {
        byte[] fingerprint = engine.fingerprinter.fingerprint(key.operation(), request, options.excludedSet());
        NearCache cache = engine.nearCache;
        if (cache != null) {
            NearCache.Entry hit = cache.get(key, engine.clock.millis());
            if (hit != null) {
                if (!Arrays.equals(hit.fingerprint(), fingerprint)) {
                    emit(Type.KEY_REUSED, hit.attempt());
                    throw new KeyReusedException(key);
                }
                return replay(hit.outcome(), hit.attempt(), null);
            }
        }
        long waitDeadline = engine.clock.millis() + policy.maxWait().toMillis();
        boolean conflictReported = false;
        for (int poll = 0; ; poll++) {
            long token = engine.nextToken();
            ClaimResult claim = engine.store.claim(key, fingerprint, token, lease, ttl);
            StoredRecord record = claim.record();
            if (claim.claimed()) {
                if (claim.status() == ClaimResult.Status.TAKEN_OVER) {
                    emit(Type.LEASE_TAKEN_OVER, record.attempt());
                }
                return execute(record, fingerprint);
            }
            if (!record.hasFingerprint(fingerprint)) {
                emit(Type.KEY_REUSED, record.attempt());
                throw new KeyReusedException(key);
            }
            switch (record.state()) {
                case COMPLETED:
                    if (cache != null) {
                        cache.put(key, fingerprint, record.outcome(), cacheExpiry(record, claim), record.attempt());
                    }
                    // Both instants are on the store's clock, so the age is right whatever the engine's clock says.
                    return replay(record.outcome(), record.attempt(), engine.listener == IdempotencyListener.NONE
                            ? null : nonNegative(Duration.between(record.createdAt(), claim.storeTime())));
                case IN_PROGRESS:
                    // Once per call, not per poll, so metrics count calls that met a conflict.
                    if (!conflictReported) {
                        conflictReported = true;
                        emit(Type.IN_PROGRESS_CONFLICT, record.attempt());
                    }
                    Duration leaseLeft = nonNegative(Duration.between(claim.storeTime(), record.leaseExpiresAt()));
                    long waitLeft = waitDeadline - engine.clock.millis();
                    if (!policy.waits() || waitLeft <= 0) {
                        throw new RequestInProgressException(key, min(engine.retryAfterHint, leaseLeft));
                    }
                    pause(poll, leaseLeft, waitLeft);
                    break;
                default:
                    throw new StoreUnavailableException("store returned a " + record.state()
                            + " record for " + key + " without letting the claim win it; the store is broken", null,
                            false);
            }
        }
    }

    private void pause(int poll, Duration leaseLeft, long waitLeftMillis) {
        long ceiling = Math.min(MAX_POLL.toMillis(), FIRST_POLL.toMillis() << Math.min(poll, 16));
        // Equal jitter: never zero (no busy loop), still spreads a herd of waiters.
        long delay = ceiling / 2 + (long) (engine.random.nextDouble() * (ceiling / 2 + 1));
        // Wake just after the lease lapses if that comes first, so a crashed holder is taken over promptly.
        delay = Math.min(delay, leaseLeft.toMillis() + 1);
        delay = Math.max(1, Math.min(delay, waitLeftMillis));
        try {
            engine.sleeper.sleep(Duration.ofMillis(delay));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RequestInProgressException(key, min(engine.retryAfterHint, leaseLeft));
        }
    }

    private Result<T> replay(byte[] outcome, int attempt, Duration recordAge) {
        switch (engine.codec.kind(outcome)) {
            case FAILURE: {
                String[] failure = engine.codec.decodeFailure(outcome);
                emit(Type.REPLAY, attempt, recordAge);
                throw new ReplayedFailureException(key, failure[0], failure[1]);
            }
            case NOT_STORED: {
                String reason = engine.codec.decodeNotStored(outcome);
                emit(Type.REPLAY, attempt, recordAge);
                throw new OutcomeNotStoredException(key, reason, true, null);
            }
            default:
                break;
        }
        T value = decode(outcome);
        emit(Type.REPLAY, attempt, recordAge);
        return new Result<>(value, true, true, attempt);
    }

    @SuppressWarnings("unchecked")
    private T decode(byte[] outcome) {
        return (T) engine.codec.decodeSuccess(outcome, type);
    }

    private Result<T> execute(StoredRecord mine, byte[] fingerprint) {
        long token = mine.fencingToken();
        int attempt = mine.attempt();
        Context ctx = new Context(mine);
        // Only work that completes itself needs the encoder; plain work allocates nothing here.
        byte[][] encoded = runner.completesItself() ? new byte[1][] : null;
        AtomicWork.Completion completion = encoded == null ? null : new AtomicWork.Completion() {
            @Override
            public byte[] encode(Object value) {
                encoded[0] = engine.codec.encodeSuccess(value);
                return encoded[0];
            }

            @Override
            public Duration ttl() {
                return ttl;
            }
        };
        T value;
        try {
            value = runner.run(ctx, completion);
        } catch (LeaseLostException e) {
            if (!e.key().equals(key) || e.fencingToken() != token) {
                // A nested call for another key (or another claim) lost its lease: a failure of this work.
                throw failed(e, token, attempt, fingerprint);
            }
            emit(Type.LEASE_LOST, attempt);
            throw e;
        } catch (Error e) {
            releaseAfter(e, token, attempt);
            throw e;
        } catch (Exception e) {
            throw failed(e, token, attempt, fingerprint);
        }
        if (runner.completesItself()) {
            return completedItself(value, token, attempt, fingerprint);
        }
        // From here on the work has run: the key is never freed, whatever happens to its outcome.
        byte[] outcome;
        try {
            outcome = engine.codec.encodeSuccess(value);
        } catch (IdempotencyException e) {
            throw unstorable(token, attempt, fingerprint, "the result cannot be written as JSON: "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
        }
        if (outcome.length > engine.maxOutcomeBytes) {
            throw unstorable(token, attempt, fingerprint, "it is " + outcome.length
                    + " bytes, over the store's limit of " + engine.maxOutcomeBytes, null);
        }
        boolean completed;
        try {
            completed = completeWithRetries(token, outcome);
        } catch (StoreUnavailableException e) {
            if (!e.retryable()) {
                throw unstorable(token, attempt, fingerprint, "the store refused it: " + e.getMessage(), e);
            }
            // The claim is kept, so the lease holds duplicates off while the store recovers.
            LOG.log(Level.WARNING, "the outcome of {0} is returned but not stored ({1}); retries may run the "
                    + "work again once the lease lapses", key, e.getMessage());
            emit(Type.OUTCOME_NOT_STORED, attempt);
            return new Result<>(plain(value, outcome), false, false, attempt);
        } catch (IllegalArgumentException e) {
            // The store's own size check disagreed with its declared limit.
            throw unstorable(token, attempt, fingerprint, "the store refused it: " + e.getMessage(), e);
        }
        if (!completed) {
            emit(Type.LEASE_LOST, attempt);
            throw new LeaseLostException(key, token);
        }
        emit(Type.FIRST_EXECUTION, attempt);
        cacheCompleted(fingerprint, outcome, attempt);
        return new Result<>(plain(value, outcome), false, true, attempt);
    }

    /**
     * The untyped {@code execute} answers plain JSON values (Map, List, String, Number,
     * Boolean, null) on replay, so the first call gets the same shape, decoded from what was stored.
     */
    private T plain(T value, byte[] outcome) {
        return type.getRawClass() == Object.class && outcome != null ? decode(outcome) : value;
    }

    /** Checks that an {@link AtomicWork} that returned normally did complete the record. */
    private Result<T> completedItself(T value, long token, int attempt, byte[] fingerprint) {
        StoredRecord now;
        try {
            now = engine.store.find(key).orElse(null);
        } catch (StoreUnavailableException e) {
            LOG.log(Level.WARNING, "could not check that the atomic work completed {0}: {1}", key, e.getMessage());
            emit(Type.OUTCOME_NOT_STORED, attempt);
            return new Result<>(value, false, false, attempt);
        }
        if (now != null && now.fencingToken() == token && now.state() == RecordState.COMPLETED) {
            emit(Type.FIRST_EXECUTION, attempt);
            cacheCompleted(fingerprint, now.outcome(), attempt);
            return new Result<>(plain(value, now.outcome()), false, true, attempt);
        }
        if (now != null && now.fencingToken() == token && now.state() == RecordState.IN_PROGRESS) {
            IllegalStateException bug = new IllegalStateException("AtomicWork for " + key
                    + " returned without completing the record; it must complete it in its transaction or throw");
            throw unstorable(token, attempt, fingerprint,
                    "the atomic work returned without completing the record (a programming error)", bug);
        }
        emit(Type.LEASE_LOST, attempt);
        throw new LeaseLostException(key, token);
    }

    /**
     * The work ran but its outcome cannot be stored: store a final marker in its place, so
     * the key is not freed and every caller gets the same {@link OutcomeNotStoredException}.
     * If even the marker cannot be stored the claim is kept until its lease lapses.
     */
    private RuntimeException unstorable(long token, int attempt, byte[] fingerprint, String reason,
            Throwable cause) {
        String kept = reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "..." : reason;
        byte[] marker = engine.codec.encodeNotStored(kept);
        if (marker.length > engine.maxOutcomeBytes) {
            kept = "";
            marker = engine.codec.encodeNotStored(kept);
        }
        OutcomeNotStoredException answer = new OutcomeNotStoredException(key, kept, false, cause);
        emit(Type.OUTCOME_NOT_STORED, attempt);
        try {
            if (marker.length <= engine.maxOutcomeBytes && completeWithRetries(token, marker)) {
                cacheCompleted(fingerprint, marker, attempt);
                LOG.log(Level.WARNING, "the work for {0} ran but its outcome could not be stored ({1}); "
                        + "a marker was stored instead, so retries get the same error", key, reason);
                return answer;
            }
            if (marker.length > engine.maxOutcomeBytes) {
                LOG.log(Level.WARNING, "the work for {0} ran but neither its outcome nor a marker fits the store;"
                        + " retries may run the work again once the lease lapses", key);
                return answer;
            }
            emit(Type.LEASE_LOST, attempt);
            LeaseLostException lost = new LeaseLostException(key, token);
            lost.addSuppressed(answer);
            return lost;
        } catch (StoreUnavailableException | IllegalArgumentException storeFailure) {
            answer.addSuppressed(storeFailure);
            LOG.log(Level.WARNING, "the work for {0} ran but neither its outcome nor a marker could be stored;"
                    + " retries may run the work again once the lease lapses", key);
            return answer;
        }
    }

    private RuntimeException failed(Exception e, long token, int attempt, byte[] fingerprint) {
        FailureDecision decision;
        try {
            FailureDecision settled = StepContext.settledFailure(e);
            decision = settled != null ? settled : engine.classifier.classify(e);
        } catch (RuntimeException classifierFailure) {
            LOG.log(Level.WARNING, "failure classifier threw; treating the failure as transient", classifierFailure);
            decision = FailureDecision.transientFailure();
        }
        if (decision == null || !decision.isFinal()) {
            if (releaseAfter(e, token, attempt)) {
                emit(Type.RELEASED_ON_TRANSIENT_FAILURE, attempt);
            }
            return rethrowable(e);
        }
        // The first caller gets what every retry will get: the stored code and message, 422.
        FinalFailureException answer = new FinalFailureException(key, decision.code(), decision.message(), e);
        byte[] outcome = engine.codec.encodeFailure(decision.code(), decision.message());
        try {
            if (completeWithRetries(token, outcome)) {
                emit(Type.FINAL_FAILURE_STORED, attempt);
                cacheCompleted(fingerprint, outcome, attempt);
                return answer;
            }
            emit(Type.LEASE_LOST, attempt);
            LeaseLostException lost = new LeaseLostException(key, token);
            lost.initCause(e);
            return lost;
        } catch (StoreUnavailableException | IllegalArgumentException storeFailure) {
            answer.addSuppressed(storeFailure);
            emit(Type.OUTCOME_NOT_STORED, attempt);
            return answer;
        }
    }

    private static RuntimeException rethrowable(Exception e) {
        return e instanceof RuntimeException ? (RuntimeException) e : new WorkFailedException(e);
    }

    /** Releases the key after a failure; returns whether the release took effect. */
    private boolean releaseAfter(Throwable failure, long token, int attempt) {
        try {
            if (engine.store.release(key, token)) {
                return true;
            }
            emit(Type.LEASE_LOST, attempt);
            failure.addSuppressed(new LeaseLostException(key, token));
        } catch (RuntimeException releaseFailure) {
            failure.addSuppressed(releaseFailure);
        }
        return false;
    }

    private boolean completeWithRetries(long token, byte[] outcome) {
        StoreUnavailableException last = null;
        for (int i = 0; i < engine.completeAttempts; i++) {
            try {
                return engine.store.complete(key, token, outcome, ttl);
            } catch (StoreUnavailableException e) {
                last = e;
                if (!e.retryable() || i + 1 == engine.completeAttempts) {
                    break;
                }
                try {
                    engine.sleeper.sleep(Duration.ofMillis(50L << i));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        throw last;
    }

    private void cacheCompleted(byte[] fingerprint, byte[] outcome, int attempt) {
        if (engine.nearCache != null && outcome != null) {
            engine.nearCache.put(key, fingerprint, outcome, engine.clock.millis() + ttl.toMillis(), attempt);
        }
    }

    private void emit(Type type, int attempt) {
        emit(type, attempt, null);
    }

    private void emit(Type type, int attempt, Duration recordAge) {
        if (engine.listener == IdempotencyListener.NONE) {
            return;
        }
        try {
            engine.listener.onEvent(new IdempotencyEvent(type, key.scope(), key.operation(), attempt,
                    Duration.ofNanos(engine.ticker.read() - started), key.key(), recordAge));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "idempotency listener threw on " + type, e);
        }
    }

    /**
     * The near cache judges expiry by the engine's clock. A store that judges time by its own
     * server clock reports expiries on that clock, so only the time left is carried over;
     * otherwise a skewed engine clock would keep replaying an outcome the store already expired.
     */
    private long cacheExpiry(StoredRecord record, ClaimResult claim) {
        long expiresAt = record.expiresAt().toEpochMilli();
        if (!engine.serverClock) {
            return expiresAt;
        }
        return engine.clock.millis() + Math.max(0, expiresAt - claim.storeTime().toEpochMilli());
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
        private String downstream;

        Context(StoredRecord claim) {
            super(engine, key, claim, lease);
            this.claim = claim;
            this.leaseDeadline = claim.leaseExpiresAt();
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
        public String downstreamKey() {
            if (downstream == null) {
                downstream = Execution.downstreamKey(key);
            }
            return downstream;
        }

        @Override
        public Instant extendLease(Duration extension) {
            IdempotencyEngine.positive("lease", extension);
            Instant deadline = engine.store.extendLease(key, claim.fencingToken(), extension)
                    .orElseThrow(() -> new LeaseLostException(key, claim.fencingToken()));
            leaseDeadline = deadline;
            return deadline;
        }

        @Override
        public String toString() {
            return "ExecutionContext[" + key + ", attempt " + claim.attempt() + "]";
        }
    }
}
