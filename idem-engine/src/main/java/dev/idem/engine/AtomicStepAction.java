package dev.idem.engine;

/**
 * The body of a step that saves its own journal entry in the same transaction as its
 * business writes (see {@link ExecutionContext#atomicStep(String, Class, AtomicStepAction)}),
 * for stores that can join the caller's transaction (store-jdbc's
 * {@code checkpointInTransaction} and {@code checkpointWithin}). Then a worker that dies
 * mid-step leaves either both the writes and the entry or neither, and the step never
 * repeats a committed effect.
 *
 * <p>The action must save {@link Checkpoint#journalWith(Object) journalWith(result)}
 * fenced by {@link Checkpoint#fencingToken()} in its transaction, roll back and throw
 * {@link dev.idem.api.LeaseLostException} if the fence refuses, and return the result it
 * journaled. Returning without having committed that journal is a programming error: the
 * engine checks the record after the action returns and fails the key finally
 * ({@link StepNotJournaledException}), because the step's writes may have committed.
 *
 * @param <R> the step's result, which must survive a round trip through the engine's ObjectMapper
 */
@FunctionalInterface
public interface AtomicStepAction<R> {
    /**
     * Performs the step and saves its journal entry in one transaction.
     *
     * @param checkpoint what the action needs to save the journal entry itself
     * @return the step's result, equal to the one passed to {@link Checkpoint#journalWith(Object)}
     * @throws Exception any failure; if it happens before the transaction commits, the step
     *     ran without effect and may run again
     */
    R run(Checkpoint checkpoint) throws Exception;

    /** What an atomic step needs to journal itself. */
    interface Checkpoint {
        /**
         * The execution's fencing token, the one the journal write must be fenced by.
         *
         * @return the execution's fencing token
         */
        long fencingToken();

        /**
         * The key's whole new journal: the journal so far with this step finished with
         * {@code result}. Calling it again (a transaction retried) gives the journal for the
         * latest result; that call's result is the one the action must return.
         *
         * @param result the step's result
         * @return the bytes to save with the store's fenced checkpoint
         * @throws StepNotJournaledException if the result cannot be written as JSON or the
         *     journal would exceed the store's limit; nothing may be saved then
         */
        byte[] journalWith(Object result);
    }
}
