package dev.idem.engine;

/**
 * How an at-most-once step whose worker was interrupted is settled (see
 * {@link ExecutionContext#atMostOnceStep(String, Class, StepAction, StepReconciler)}): the
 * engine found the step's start marker in the key's journal without a result, so the step
 * may or may not have had its effect. The reconciler asks the system the step acted on (look
 * the transfer up by its reference at the bank, the message by its id at the gateway) and
 * answers with a {@link Reconciliation}:
 * <ul>
 *   <li>{@link Reconciliation#happened(Object)}: the effect happened; the result is journaled
 *       as the step's and the work goes on, the step does not run;</li>
 *   <li>{@link Reconciliation#didNotHappen()}: the effect did not happen and never will (no
 *       request of the interrupted attempt is still on its way); only then does the step run;</li>
 *   <li>{@link Reconciliation#unknown(String)}: it cannot tell; the key fails finally with
 *       {@link StepOutcomeUnknownException}, stored and replayed to every retry, so nobody runs
 *       the step twice and an operator settles it.</li>
 * </ul>
 * A reconciler that throws settles nothing: the exception fails the work as any exception of
 * it does (a transient failure hands the key back, and the next attempt reconciles again).
 *
 * <p>It runs on the attempt that took the key over, in the work's thread, under that
 * attempt's claim. It must answer from the other system's record, never from memory of this
 * process: the attempt that started the step may have run in another process.
 *
 * @param <R> the step's result type
 */
@FunctionalInterface
public interface StepReconciler<R> {
    /**
     * Settles an interrupted step.
     *
     * @param step the step found started without a result, and who started it
     * @return whether the step's effect happened (with its result), did not, or cannot be told
     * @throws Exception any failure to find out; the work fails with it and nothing is journaled
     */
    Reconciliation<R> reconcile(InterruptedStep step) throws Exception;
}
