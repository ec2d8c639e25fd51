package dev.idem.engine;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.OutcomeFilter;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The store writes that end one execution: its outcome (a success or a final failure, each
 * retried on transient store failures), the "outcome not stored" marker that stands in for
 * either when it cannot be stored, and the release or hand-back of the key after a
 * transient failure.
 *
 * <p>Once the work has run, an outcome is never dropped silently: one that cannot be written
 * as JSON, is over the engine's limit ({@link IdempotencyEngine#maxOutcomeBytes()}) or is
 * refused by the store for good is replaced by a stored marker, so every caller gets the same
 * {@link OutcomeNotStoredException} and the work does not run again; only a store that stays
 * unavailable leaves the claim in place until its lease lapses.
 */
final class Recorder {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    private static final int MAX_REASON = 300;
    /**
     * The lease a key is handed back with: it lapses at once, so the same request takes the key
     * over (with its journal) without waiting, while the record stays IN_PROGRESS with its
     * fingerprint, so another request is still refused.
     */
    static final Duration HAND_BACK = Duration.ofMillis(1);

    /** Where events go. */
    interface Events {
        void emit(Type type, int attempt);
    }

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final Duration ttl;
    private final Events events;
    private final OutcomeFilter filter;

    Recorder(EngineParts parts, IdempotencyKey key, Duration ttl, Events events, OutcomeFilter filter) {
        this.parts = parts;
        this.key = key;
        this.ttl = ttl;
        this.events = events;
        this.filter = filter;
    }

    /**
     * A success outcome: what is stored (filtered, then sealed) and the work's whole result in
     * the outcome format (what the first caller of an untyped call decodes); or, for one that cannot
     * be stored, why ({@code notStored}, with its {@code cause} if any) and nothing else.
     */
    record Encoded(byte[] stored, byte[] plain, String notStored, Throwable cause) {
        Encoded(byte[] stored, byte[] plain) {
            this(stored, plain, null, null);
        }

        static Encoded notStored(String reason, Throwable cause) {
            return new Encoded(null, null, reason, cause);
        }

        boolean storable() {
            return notStored == null;
        }
    }

    /**
     * Encodes a success outcome: its bytes, or why it cannot be stored (not writable as JSON, refused
     * by the filter or the key provider, over the engine's limit), for {@link #unstorable}.
     */
    Encoded encodeSuccess(Object value, byte[] fingerprint) {
        Encoded outcome;
        try {
            outcome = encode(value, fingerprint);
        } catch (Unstorable e) {
            return Encoded.notStored(e.getMessage(), e.getCause());
        }
        if (outcome.stored.length > parts.maxOutcomeBytes()) {
            return Encoded.notStored("it is " + outcome.stored.length + " bytes, " + overLimit(), null);
        }
        return outcome;
    }

    /**
     * Encodes a success outcome for work that stores it itself ({@link AtomicWork.Completion#encode}).
     *
     * @throws IdempotencyException if it cannot be written, filtered or encrypted (the work's
     *     transaction then fails, and with it the work's effect)
     */
    Encoded encodeForWork(Object value, byte[] fingerprint) {
        try {
            return encode(value, fingerprint);
        } catch (Unstorable e) {
            throw new IdempotencyException("the outcome of " + key + " cannot be stored: " + e.getMessage(),
                    e.getCause());
        }
    }

    /** Why an outcome cannot be stored, before anything was written. */
    private static final class Unstorable extends Exception {
        private static final long serialVersionUID = 1L;

        Unstorable(String reason, Throwable cause) {
            super(reason, cause, false, false);
        }
    }

    private Encoded encode(Object value, byte[] fingerprint) throws Unstorable {
        byte[] plain;
        try {
            plain = parts.encodeSuccess(value);
        } catch (IdempotencyException e) {
            throw new Unstorable("the result cannot be written as JSON: "
                    + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
        }
        byte[] kept = plain;
        // A filter reads JSON trees; bytes a caller rendered itself (an HTTP response frame) are not one.
        if (filter != null && !(value instanceof StoredBytes)) {
            try {
                kept = parts.codec().keep(filter, key, plain);
            } catch (Exception e) {
                throw new Unstorable("the outcome filter threw " + e, e);
            }
        }
        return new Encoded(seal(kept, fingerprint), plain);
    }

    /** Seals an outcome for the record; a key provider's failure is a reason not to store it. */
    private byte[] seal(byte[] outcome, byte[] fingerprint) throws Unstorable {
        try {
            return parts.sealer().seal(Sealer.Part.OUTCOME, key, fingerprint, outcome);
        } catch (RuntimeException e) {
            // Its class only: a key provider's message may name the key (a KMS ARN), and the marker that
            // carries this reason is stored unencrypted when sealing fails.
            throw new Unstorable("the outcome could not be encrypted (" + e.getClass().getName() + ")", e);
        }
    }

    private String overLimit() {
        return "over the limit of " + parts.maxOutcomeBytes() + " (IdempotencyEngineBuilder.maxOutcomeBytes)";
    }

    /**
     * Stores a success outcome. Completes with true if it is stored, false if the store stayed
     * unavailable (the claim is kept); fails with {@link LeaseLostException} if another claim holds
     * the key, with {@link OutcomeNotStoredException} if the store refused it for good (its marker
     * stored).
     */
    CompletableFuture<Boolean> completeSuccess(byte[] outcome, long token, int attempt, byte[] fingerprint,
            StoreWrites writes) {
        long sent = parts.ticker().read();
        CompletableFuture<Boolean> written = completeWithRetries(token, outcome, writes);
        if (StoreWrites.succeeded(written) && written.join()) {
            // Stored at the first try, as nearly always: no stage chain to decide it.
            return stored(outcome, attempt, fingerprint, sent);
        }
        return StoreWrites.then(written, (completed, failure) -> {
            Throwable e = failure == null ? null : AsyncCall.unwrap(failure);
            if (e instanceof StoreUnavailableException && ((StoreUnavailableException) e).retryable()) {
                // The claim is kept, so the lease holds duplicates off while the store recovers.
                LOG.log(Level.WARNING, "the outcome of {0} is returned but not stored ({1}); retries may run the "
                        + "work again once the lease lapses", key.digest(), e.getMessage());
                events.emit(Type.OUTCOME_NOT_STORED, attempt);
                return CompletableFuture.completedFuture(false);
            }
            if (e instanceof StoreUnavailableException || e instanceof IllegalArgumentException) {
                // Refused for good, or the store's own size check disagreed with its declared limit.
                return unstorable(token, attempt, fingerprint, "the store refused it: " + e.getMessage(), e, writes)
                        .thenCompose(Recorder::<Boolean>failed);
            }
            if (e != null) {
                return Recorder.<Boolean>failed(e);
            }
            if (!completed) {
                events.emit(Type.LEASE_LOST, attempt);
                return Recorder.<Boolean>failed(new LeaseLostException(key, token));
            }
            return stored(outcome, attempt, fingerprint, sent);
        });
    }

    private CompletableFuture<Boolean> stored(byte[] outcome, int attempt, byte[] fingerprint, long sent) {
        events.emit(Type.FIRST_EXECUTION, attempt);
        cache(fingerprint, outcome, attempt, sent);
        return DirectPort.TRUE;
    }

    /**
     * Stores a final failure and completes with what the first caller gets: {@code answer} once it
     * is stored (or while the store stays unavailable, the claim kept), the marker's
     * {@link OutcomeNotStoredException} if it is over the limit or refused for good, a
     * {@link LeaseLostException} caused by {@code cause} if another claim holds the key.
     */
    CompletableFuture<RuntimeException> storeFinalFailure(FinalFailureException answer, Throwable cause, long token,
            int attempt, byte[] fingerprint, StoreWrites writes) {
        byte[] outcome;
        try {
            outcome = seal(parts.codec().encodeFailure(answer.code(), answer.detail()), fingerprint);
        } catch (Unstorable e) {
            return unstorable(token, attempt, fingerprint, "the final failure '" + answer.code() + "' could not be"
                    + " stored: " + e.getMessage(), answer, writes);
        }
        if (outcome.length > parts.maxOutcomeBytes()) {
            return unstorable(token, attempt, fingerprint, "the final failure '" + answer.code() + "' is "
                    + outcome.length + " bytes, " + overLimit(), answer, writes);
        }
        long sent = parts.ticker().read();
        return StoreWrites.then(completeWithRetries(token, outcome, writes), (completed, failure) -> {
            Throwable e = failure == null ? null : AsyncCall.unwrap(failure);
            if (e == null && completed) {
                events.emit(Type.FINAL_FAILURE_STORED, attempt);
                cache(fingerprint, outcome, attempt, sent);
                return CompletableFuture.<RuntimeException>completedFuture(answer);
            }
            if (e == null) {
                events.emit(Type.LEASE_LOST, attempt);
                LeaseLostException lost = new LeaseLostException(key, token);
                lost.initCause(cause);
                return CompletableFuture.<RuntimeException>completedFuture(lost);
            }
            if (e instanceof StoreUnavailableException && ((StoreUnavailableException) e).retryable()) {
                answer.addSuppressed(e);
                events.emit(Type.OUTCOME_NOT_STORED, attempt);
                return CompletableFuture.<RuntimeException>completedFuture(answer);
            }
            if (e instanceof StoreUnavailableException || e instanceof IllegalArgumentException) {
                return unstorable(token, attempt, fingerprint, "the store refused the final failure '"
                        + answer.code() + "': " + e.getMessage(), answer, writes);
            }
            return Recorder.<RuntimeException>failed(e);
        });
    }

    /**
     * The work ran but its outcome cannot be stored: store a final marker in its place, so
     * the key is not freed and every caller gets the same {@link OutcomeNotStoredException}.
     * If even the marker cannot be stored the claim is kept until its lease lapses. Completes
     * with the answer for the caller.
     */
    CompletableFuture<RuntimeException> unstorable(long token, int attempt, byte[] fingerprint, String reason,
            Throwable cause, StoreWrites writes) {
        String shortened = reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "..." : reason;
        byte[] fullMarker = sealMarker(shortened, fingerprint);
        String kept = fullMarker.length > parts.maxOutcomeBytes() ? "" : shortened;
        byte[] marker = kept.isEmpty() && !shortened.isEmpty() ? sealMarker(kept, fingerprint) : fullMarker;
        OutcomeNotStoredException answer = new OutcomeNotStoredException(key, kept, false, cause);
        events.emit(Type.OUTCOME_NOT_STORED, attempt);
        if (marker.length > parts.maxOutcomeBytes()) {
            LOG.log(Level.WARNING, "the work for {0} ran but neither its outcome nor a marker fits the store;"
                    + " retries may run the work again once the lease lapses", key.digest());
            return CompletableFuture.completedFuture(answer);
        }
        long sent = parts.ticker().read();
        return StoreWrites.then(completeWithRetries(token, marker, writes), (completed, failure) -> {
            Throwable e = failure == null ? null : AsyncCall.unwrap(failure);
            if (e instanceof StoreUnavailableException || e instanceof IllegalArgumentException) {
                answer.addSuppressed(e);
                LOG.log(Level.WARNING, "the work for {0} ran but neither its outcome nor a marker could be stored;"
                        + " retries may run the work again once the lease lapses", key.digest());
                return CompletableFuture.<RuntimeException>completedFuture(answer);
            }
            if (e != null) {
                return Recorder.<RuntimeException>failed(e);
            }
            if (completed) {
                cache(fingerprint, marker, attempt, sent);
                LOG.log(Level.WARNING, "the work for {0} ran but its outcome could not be stored ({1}); "
                        + "a marker was stored instead, so retries get the same error", key.digest(), reason);
                return CompletableFuture.<RuntimeException>completedFuture(answer);
            }
            events.emit(Type.LEASE_LOST, attempt);
            LeaseLostException lost = new LeaseLostException(key, token);
            lost.addSuppressed(answer);
            return CompletableFuture.<RuntimeException>completedFuture(lost);
        });
    }

    /**
     * The marker, sealed; in clear if sealing fails (it holds the engine's reason only), so that
     * a failing key provider still cannot make the work run again.
     */
    private byte[] sealMarker(String reason, byte[] fingerprint) {
        byte[] marker = parts.codec().encodeNotStored(reason);
        try {
            return seal(marker, fingerprint);
        } catch (Unstorable e) {
            LOG.log(Level.WARNING, "the not-stored marker of {0} could not be encrypted ({1}); it is stored"
                    + " unencrypted", key.digest(), e.getMessage());
            return marker;
        }
    }

    /** Releases the key after a failure; completes with whether the release took effect. */
    CompletableFuture<Boolean> release(Throwable failure, long token, int attempt, StoreWrites writes) {
        return given(writes.release(token), failure, token, attempt);
    }

    /**
     * Gives back a key whose journal may hold steps, without freeing it: its lease is cut to
     * {@link #HAND_BACK}, so the same request takes it over at once and resumes from the
     * journal, while the record keeps its fingerprint and any other request gets
     * {@link dev.idem.api.KeyReusedException}. A release would let another request claim the
     * key, drop the journal and run the finished steps again. Completes with whether it took effect.
     */
    CompletableFuture<Boolean> handBack(Throwable failure, long token, int attempt, StoreWrites writes) {
        return given(writes.extendLease(token, HAND_BACK), failure, token, attempt);
    }

    private CompletableFuture<Boolean> given(CompletableFuture<Boolean> write, Throwable failure, long token,
            int attempt) {
        return StoreWrites.then(write, (ok, e) -> {
            if (e != null) {
                Throwable cause = AsyncCall.unwrap(e);
                if (cause instanceof Error) {
                    return Recorder.<Boolean>failed(cause);
                }
                failure.addSuppressed(cause);
                return CompletableFuture.completedFuture(false);
            }
            if (!ok) {
                events.emit(Type.LEASE_LOST, attempt);
                failure.addSuppressed(new LeaseLostException(key, token));
            }
            return CompletableFuture.completedFuture(ok);
        });
    }

    /**
     * Caches an outcome this execution stored: the record lives a TTL from when the store wrote
     * it, which is after {@code sentTick}, a ticker reading taken before the write was sent (the
     * first attempt's, when it was tried again).
     */
    void cache(byte[] fingerprint, byte[] outcome, int attempt, long sentTick) {
        if (parts.nearCache() != null && outcome != null) {
            parts.nearCache().put(key, fingerprint, outcome, sentTick, ttl.toNanos(), attempt);
        }
    }

    private CompletableFuture<Boolean> completeWithRetries(long token, byte[] outcome, StoreWrites writes) {
        CompletableFuture<Boolean> first = writes.complete(token, outcome, ttl);
        return StoreWrites.succeeded(first) ? first
                : writes.retried(first, () -> writes.complete(token, outcome, ttl));
    }

    static <R> CompletableFuture<R> failed(Throwable e) {
        return CompletableFuture.failedFuture(e);
    }

    /**
     * Runs a blocking fenced write with the retries of {@link StoreWrites#withRetries}.
     *
     * @throws StoreUnavailableException the last failure, if no attempt succeeded
     */
    static boolean withRetries(EngineParts parts, BooleanSupplier write) {
        StoreWrites writes = new StoreWrites(parts.direct(), null, parts.completeAttempts());
        return StoreWrites.join(writes.withRetries(() -> {
            try {
                return CompletableFuture.completedFuture(write.getAsBoolean());
            } catch (RuntimeException | Error e) {
                return CompletableFuture.failedFuture(e);
            }
        }));
    }
}
