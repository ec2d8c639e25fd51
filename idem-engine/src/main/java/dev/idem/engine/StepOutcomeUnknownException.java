package dev.idem.engine;

import dev.idem.api.IdempotencyKey;

/**
 * An at-most-once step was started and interrupted, and its {@link StepReconciler} could not
 * tell whether its effect happened ({@link Reconciliation#unknown(String)}). Running it again
 * might repeat the effect, and skipping it might lose it, so the engine does neither: it
 * stores this failure as the key's final outcome (code {@value #CODE}) whatever the
 * {@link FailureClassifier} says. The first caller gets this exception, every later call a
 * {@link dev.idem.api.ReplayedFailureException} with the same code and detail, and the step
 * never runs for this key; the message names the step, the attempt that started it and the
 * reconciler's reason, for the operator who settles it by hand.
 */
public class StepOutcomeUnknownException extends StepNotJournaledException {
    private static final long serialVersionUID = 1L;

    /** The failure code stored for the key. */
    public static final String CODE = "step_outcome_unknown";

    /** The attempt that started the step and was interrupted. */
    private final int startedBy;
    /** The attempt that found the step and could not settle it. */
    private final int attempt;

    /**
     * Creates the exception.
     *
     * @param key the key whose step's outcome is unknown
     * @param step the step's name
     * @param startedBy the attempt that started the step and was interrupted
     * @param attempt the attempt that found it and could not settle it
     * @param reason the reconciler's reason
     */
    public StepOutcomeUnknownException(IdempotencyKey key, String step, int startedBy, int attempt, String reason) {
        super(key, step, CODE, "at-most-once step '" + step + "' of idempotency key " + key.key() + " on "
                + key.operation() + " was started by attempt " + startedBy + " and interrupted, and attempt " + attempt
                + " could not tell whether its effect happened (" + reason + "); the key is failed finally so that"
                + " nobody runs the step twice: settle it by hand", null);
        this.startedBy = startedBy;
        this.attempt = attempt;
    }

    /**
     * The attempt that started the step and was interrupted.
     *
     * @return the attempt number
     */
    public int startedBy() {
        return startedBy;
    }

    /**
     * The attempt that found the step and could not settle it.
     *
     * @return the attempt number
     */
    public int attempt() {
        return attempt;
    }
}
