package dev.idem.engine;

/**
 * The body of one step with no result (see {@link ExecutionContext#step(String, VoidStepAction)}).
 * It runs at most once per attempt, and not at all on an attempt that finds it finished in
 * the key's journal.
 */
@FunctionalInterface
public interface VoidStepAction {
    /**
     * Performs the step.
     *
     * @throws Exception any failure; it fails the step and the work, and nothing is journaled for the step
     */
    void run() throws Exception;
}
