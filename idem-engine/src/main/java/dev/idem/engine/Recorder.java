package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.OutcomeFilter;
import java.lang.System.Logger.Level;

/**
 * One call's outcome as the record holds it: a success, a final failure or the not-stored marker
 * encoded, filtered and sealed into the {@link Ending} step that stores it, and a stored outcome
 * opened, rebuilt and decoded again for a replay. No store: the drivers write what it encodes.
 *
 * <p>An outcome that cannot be stored (not writable as JSON, refused by the filter or the key
 * provider, over the engine's limit ({@link IdempotencyEngine#maxOutcomeBytes()})) becomes the
 * marker's step instead; a marker that cannot be sealed is stored in clear (it holds the engine's
 * reason only), so a failing key provider still cannot make the work run again.
 */
final class Recorder {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    private static final int MAX_REASON = 300;

    private final EngineParts parts;
    private final IdempotencyKey key;
    private final JavaType type;
    private final OutcomeFilter filter;

    Recorder(EngineParts parts, IdempotencyKey key, JavaType type, OutcomeFilter filter) {
        this.parts = parts;
        this.key = key;
        this.type = type;
        this.filter = filter;
    }

    IdempotencyKey key() {
        return key;
    }

    /**
     * A success outcome: what is stored (filtered, then sealed) and the work's whole result in
     * the outcome format (what the first caller of an untyped call decodes).
     */
    record Encoded(byte[] stored, byte[] plain) {
    }

    /** Why an outcome cannot be stored, before anything was written. */
    private static final class Unstorable extends Exception {
        private static final long serialVersionUID = 1L;

        Unstorable(String reason, Throwable cause) {
            super(reason, cause, false, false);
        }
    }

    /** How the key ends once the work returned {@code value}: its outcome stored, or the marker if it cannot be. */
    <T> Ending<T> complete(T value, long token, int attempt, byte[] fingerprint) {
        Encoded outcome;
        try {
            outcome = encode(value, fingerprint);
        } catch (Unstorable e) {
            return marker(token, attempt, fingerprint, e.getMessage(), e.getCause(), null);
        }
        if (outcome.stored.length > parts.maxOutcomeBytes()) {
            return marker(token, attempt, fingerprint, "it is " + outcome.stored.length + " bytes, " + overLimit(),
                    null, null);
        }
        return new Ending.Complete<>(this, token, attempt, fingerprint, outcome.stored, plain(value, outcome.plain));
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
     * How the key ends with a final failure: {@code answer} stored, or the marker if it cannot be
     * (over the limit, not sealable); {@code cause} is what a lost lease's exception is caused by, and
     * {@code rethrown} (if not null) the work's {@link Error}, thrown with the answer suppressed.
     */
    <T> Ending<T> finalFailure(FinalFailureException answer, Throwable cause, long token, int attempt,
            byte[] fingerprint, Error rethrown) {
        byte[] outcome;
        try {
            outcome = seal(parts.codec().encodeFailure(answer.code(), answer.detail()), fingerprint);
        } catch (Unstorable e) {
            return marker(token, attempt, fingerprint, "the final failure '" + answer.code() + "' could not be"
                    + " stored: " + e.getMessage(), answer, rethrown);
        }
        if (outcome.length > parts.maxOutcomeBytes()) {
            return marker(token, attempt, fingerprint, "the final failure '" + answer.code() + "' is "
                    + outcome.length + " bytes, " + overLimit(), answer, rethrown);
        }
        return new Ending.StoreFailure<>(this, token, attempt, fingerprint, outcome, answer, cause, rethrown);
    }

    /**
     * How the key ends when the work ran but its outcome cannot be stored: a final marker in its
     * place, so the key is not freed and every caller gets the same {@link OutcomeNotStoredException}.
     * If even the marker does not fit, nothing is written: the claim is kept until its lease lapses.
     */
    <T> Ending<T> marker(long token, int attempt, byte[] fingerprint, String reason, Throwable cause,
            Error rethrown) {
        String shortened = reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "..." : reason;
        byte[] fullMarker = sealMarker(shortened, fingerprint);
        String kept = fullMarker.length > parts.maxOutcomeBytes() ? "" : shortened;
        byte[] marker = kept.isEmpty() && !shortened.isEmpty() ? sealMarker(kept, fingerprint) : fullMarker;
        OutcomeNotStoredException answer = new OutcomeNotStoredException(key, kept, false, cause);
        if (marker.length > parts.maxOutcomeBytes()) {
            return new Ending.Answer<>(null, Ending.Answer.rethrown(answer, rethrown), false, Type.OUTCOME_NOT_STORED,
                    attempt, null, null, 0, Ending.warning("the work for {0} ran but neither its outcome nor a marker"
                    + " fits the store; retries may run the work again once the lease lapses", key));
        }
        return new Ending.StoreMarker<>(this, token, attempt, fingerprint, marker, answer, reason, rethrown);
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

    /**
     * A stored outcome in the clear; {@code fingerprint} is the record's.
     *
     * @throws OutcomeUnreadableException if it cannot be decrypted (see {@link #unreadable})
     */
    byte[] open(byte[] stored, byte[] fingerprint) {
        return parts.sealer().open(Sealer.Part.OUTCOME, key, fingerprint, stored);
    }

    /** The warning an outcome that cannot be opened is logged with. */
    String unreadable(OutcomeUnreadableException e) {
        // A record stored in clear names no key id: say only why, not "key id null".
        String why = e.keyId() == null ? e.reason().toString() : e.reason() + ", key id " + e.keyId();
        return Ending.warning("the stored outcome of {0} cannot be read ({1}); the work does not run again", key,
                why);
    }

    /** What the outcome filter rebuilds of a stored success, for a replay. */
    byte[] rebuild(byte[] outcome) {
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

    /** A stored success outcome as the call's result type. */
    @SuppressWarnings("unchecked")
    <T> T decode(byte[] outcome) {
        return (T) parts.decodeSuccess(outcome, type);
    }

    /** Whether the result type is {@code Object}: the untyped call, whose first caller gets plain JSON values too. */
    boolean untyped() {
        return type.getRawClass() == Object.class;
    }

    /**
     * The untyped {@code execute} answers plain JSON values (Map, List, String, Number,
     * Boolean, null) on replay, so the first call gets the same shape, decoded from the
     * encoded result ({@code outcome}, in the clear and unfiltered).
     */
    <T> T plain(T value, byte[] outcome) {
        return untyped() && outcome != null ? decode(outcome) : value;
    }
}
