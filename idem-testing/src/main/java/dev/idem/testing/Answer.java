package dev.idem.testing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one caller of a key got from the engine in a crash schedule.
 *
 * @param kind what kind of answer it was
 * @param value the result, for {@link Kind#VALUE}; null otherwise (and for a null result)
 * @param detail the failure's code and detail, the exception's type, or where the worker crashed, for the other
 *     kinds; empty for a value
 * @param replayed for a value, whether the engine replayed it without running the work
 */
public record Answer(Kind kind, @Nullable Object value, String detail, boolean replayed) {
    /** The kinds of answer a caller can get. */
    public enum Kind {
        /** A result (run or replayed). */
        VALUE,
        /** A final failure (run or replayed): its code and detail. */
        FINAL_FAILURE,
        /** The work ran but its outcome could not be stored (stored as such and replayed). */
        OUTCOME_NOT_STORED,
        /** The key was in progress (409): the caller tries again later. */
        IN_PROGRESS,
        /** Another failure the caller retries (a transient failure, a lost lease, the store unreachable). */
        FAILED,
        /** The caller's worker crashed (injected): no answer. */
        CRASHED
    }

    /**
     * Whether this answer settles the key: a value, a final failure or an outcome not stored,
     * which every later caller must get again.
     *
     * @return true for a settling answer
     */
    public boolean settles() {
        return kind == Kind.VALUE || kind == Kind.FINAL_FAILURE || kind == Kind.OUTCOME_NOT_STORED;
    }

    /**
     * Whether {@code other} is the same answer, whether or not either was replayed.
     *
     * @param other another answer
     * @return true if kind, value and detail are equal
     */
    public boolean sameAs(Answer other) {
        return kind == other.kind && Objects.equals(value, other.value) && detail.equals(other.detail);
    }

    @Override
    public String toString() {
        switch (kind) {
            case VALUE:
                return "value " + value + (replayed ? " (replayed)" : "");
            case FINAL_FAILURE:
                return "final failure " + detail;
            case OUTCOME_NOT_STORED:
                return "outcome not stored: " + detail;
            case IN_PROGRESS:
                return "in progress (409)";
            case FAILED:
                return "failed: " + detail;
            default:
                return "crashed: " + detail;
        }
    }
}
