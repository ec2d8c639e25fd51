package dev.idem.engine;

/**
 * The body of one step that produces a result (see
 * {@link ExecutionContext#step(String, Class, StepAction)}). It runs at most once per
 * attempt, and not at all on an attempt that finds its result in the key's journal.
 *
 * @param <R> the step's result, which must survive a round trip through the engine's ObjectMapper
 */
@FunctionalInterface
public interface StepAction<R> {
    /**
     * Performs the step.
     *
     * @return the step's result, journaled before the next step starts
     * @throws Exception any failure; it fails the step and the work, and nothing is journaled for the step
     */
    R run() throws Exception;
}
