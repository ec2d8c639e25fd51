package dev.idem.engine;

import java.util.Objects;

/**
 * The value of an execution, and whether it was produced now or replayed from the store.
 *
 * @param <T> the value type
 */
public final class Result<T> {
    private final T value;
    private final boolean replayed;
    private final boolean stored;
    private final int attempt;

    Result(T value, boolean replayed, boolean stored, int attempt) {
        this.value = value;
        this.replayed = replayed;
        this.stored = stored;
        this.attempt = attempt;
    }

    /** The work's result; on a replay, decoded from the stored outcome (equal to the first one). */
    public T value() {
        return value;
    }

    /** True if the work did not run now and the stored outcome was returned. */
    public boolean replayed() {
        return replayed;
    }

    /**
     * True if the outcome is stored, so retries will replay it. False only when the work ran
     * but its outcome could not be stored (the store failed, or the outcome exceeds the
     * store's limit); retries may then run the work again.
     */
    public boolean stored() {
        return stored;
    }

    /** The attempt that produced the value (see {@link ExecutionContext#attempt()}). */
    public int attempt() {
        return attempt;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Result)) {
            return false;
        }
        Result<?> r = (Result<?>) o;
        return replayed == r.replayed && stored == r.stored && attempt == r.attempt && Objects.equals(value, r.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, replayed, stored, attempt);
    }

    @Override
    public String toString() {
        return "Result[" + (replayed ? "replayed" : "executed") + ", attempt " + attempt + ", " + value + "]";
    }
}
