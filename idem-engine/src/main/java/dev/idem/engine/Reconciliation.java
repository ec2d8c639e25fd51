package dev.idem.engine;

import java.util.Objects;

/**
 * What a {@link StepReconciler} found out about an interrupted at-most-once step: it
 * {@linkplain #happened(Object) happened} (with the step's result), it
 * {@linkplain #didNotHappen() did not happen}, or it is {@linkplain #unknown(String) unknown}.
 * Immutable; equal when outcome, result and reason are.
 *
 * @param <R> the step's result type
 */
public final class Reconciliation<R> {
    /** The three answers a reconciler can give. */
    public enum Outcome {
        /** The step's effect happened: its result is journaled and the step does not run. */
        HAPPENED,
        /** The step's effect did not happen and will not: the step runs. */
        DID_NOT_HAPPEN,
        /** Nobody can tell: the key fails finally with {@link StepOutcomeUnknownException}. */
        UNKNOWN
    }

    private static final Reconciliation<?> DID_NOT_HAPPEN = new Reconciliation<>(Outcome.DID_NOT_HAPPEN, null, null);

    private final Outcome outcome;
    private final R result;
    private final String reason;

    private Reconciliation(Outcome outcome, R result, String reason) {
        this.outcome = outcome;
        this.result = result;
        this.reason = reason;
    }

    /**
     * The step's effect happened, and {@code result} is what the step would have returned:
     * it is journaled as the step's result (so it must survive a JSON round trip, as any step
     * result) and returned to the work.
     *
     * @param <R> the step's result type
     * @param result the step's result (null for a step without one)
     * @return the answer
     */
    public static <R> Reconciliation<R> happened(R result) {
        return new Reconciliation<>(Outcome.HAPPENED, result, null);
    }

    /**
     * The step's effect did not happen, and no request of the interrupted attempt can still
     * make it happen: the step runs now (after a new start marker of this attempt).
     *
     * @param <R> the step's result type
     * @return the answer
     */
    @SuppressWarnings("unchecked")
    public static <R> Reconciliation<R> didNotHappen() {
        return (Reconciliation<R>) DID_NOT_HAPPEN;
    }

    /**
     * Whether the step's effect happened cannot be told: the key fails finally with
     * {@link StepOutcomeUnknownException}, whose message names the step, the attempt that
     * started it and {@code reason}.
     *
     * @param <R> the step's result type
     * @param reason why it cannot be told, for the operator (stored with the failure: no secrets)
     * @return the answer
     * @throws NullPointerException if {@code reason} is null
     */
    public static <R> Reconciliation<R> unknown(String reason) {
        return new Reconciliation<>(Outcome.UNKNOWN, null, Objects.requireNonNull(reason, "reason"));
    }

    /**
     * Which answer this is.
     *
     * @return the outcome
     */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * The step's result, for {@link Outcome#HAPPENED}; null otherwise.
     *
     * @return the result, or null
     */
    public R result() {
        return result;
    }

    /**
     * Why the outcome cannot be told, for {@link Outcome#UNKNOWN}; null otherwise.
     *
     * @return the reason, or null
     */
    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reconciliation<?> other && outcome == other.outcome && Objects.equals(result, other.result)
                && Objects.equals(reason, other.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, result, reason);
    }

    @Override
    public String toString() {
        switch (outcome) {
            case HAPPENED:
                return "Reconciliation[happened: " + result + "]";
            case DID_NOT_HAPPEN:
                return "Reconciliation[did not happen]";
            default:
                return "Reconciliation[unknown: " + reason + "]";
        }
    }
}
