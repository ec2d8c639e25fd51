package dev.idem.engine;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The value of an execution, and whether it was produced now or replayed from the store.
 *
 * <p>A replay decodes the stored outcome when {@link #value()} is first called, not before: a
 * caller that only needs to know the call was answered (or that forwards the stored bytes, see
 * {@link StoredBytes}) pays for no decoding. Thread-safe: the value is decoded once, whichever
 * thread reads it first.
 *
 * @param <T> the value type
 */
public final class Result<T> {
    /** Turns a stored outcome into the value; may throw what decoding throws. */
    interface Decoder<T> {
        T decode(byte[] outcome);
    }

    private @Nullable T value;
    // The stored outcome while it is not decoded yet; its volatile write of null publishes value.
    private volatile byte @Nullable [] encoded;
    private final @Nullable Decoder<? extends T> decoder;
    private final boolean replayed;
    private final boolean stored;
    private final int attempt;

    Result(@Nullable T value, boolean replayed, boolean stored, int attempt) {
        this.value = value;
        this.decoder = null;
        this.replayed = replayed;
        this.stored = stored;
        this.attempt = attempt;
    }

    /** A replay of {@code outcome}, decoded by {@code decoder} when the value is first read. */
    Result(byte[] outcome, Decoder<? extends T> decoder, int attempt) {
        this.encoded = outcome;
        this.decoder = decoder;
        this.replayed = true;
        this.stored = true;
        this.attempt = attempt;
    }

    /**
     * The work's result; on a replay, decoded from the stored outcome on the first call (equal
     * to the first one).
     *
     * @return the work's result; null if the work returned null
     * @throws dev.idem.api.IdempotencyException on a replay, if the stored outcome cannot be read
     *     as the result type (the type was changed incompatibly since it was stored); every call
     *     throws it again
     */
    public @Nullable T value() {
        if (encoded != null) {
            decodeOnce();
        }
        return value;
    }

    private synchronized void decodeOnce() {
        byte[] outcome = encoded;
        if (outcome != null) {
            value = decoder.decode(outcome);
            encoded = null;
        }
    }

    /**
     * True if the work did not run now and the stored outcome was returned.
     *
     * @return {@code true} if the work did not run now and the stored outcome was returned
     */
    public boolean replayed() {
        return replayed;
    }

    /**
     * True if the outcome is stored, so retries will replay it. False only when the work ran
     * and the store stayed unavailable (retryably) through every completion attempt, or could
     * not be read to confirm an {@link AtomicWork}'s completion: the claim is kept until its
     * lease lapses, after which a retry may run the work again. An outcome that can never be
     * stored (too large, not writable) is not returned at all: see {@link OutcomeNotStoredException}.
     *
     * @return whether retries will replay this outcome
     */
    public boolean stored() {
        return stored;
    }

    /**
     * The attempt that produced the value (see {@link ExecutionContext#attempt()}).
     *
     * @return the attempt that produced the value (see {@link ExecutionContext#attempt()})
     */
    public int attempt() {
        return attempt;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Result)) {
            return false;
        }
        Result<?> r = (Result<?>) o;
        return replayed == r.replayed && stored == r.stored && attempt == r.attempt
                && Objects.equals(value(), r.value());
    }

    @Override
    public int hashCode() {
        return Objects.hash(value(), replayed, stored, attempt);
    }

    @Override
    public String toString() {
        return "Result[" + (replayed ? "replayed" : "executed") + ", attempt " + attempt + ", " + value() + "]";
    }
}
