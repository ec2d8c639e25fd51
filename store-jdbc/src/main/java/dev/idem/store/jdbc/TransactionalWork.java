package dev.idem.store.jdbc;

import dev.idem.engine.ExecutionContext;
import org.jdbi.v3.core.Handle;

/**
 * Business writes that run in the transaction of {@link JdbcIdempotencyStore#transactional(TransactionalWork)}
 * and need the execution they belong to (its downstream key, its attempt). Everything written
 * on {@code handle} commits together with the key's completion, or not at all.
 *
 * @param <T> the result, stored and replayed to duplicates
 */
@FunctionalInterface
public interface TransactionalWork<T> {
    /**
     * Performs the writes on the transaction's handle.
     *
     * @param handle the handle of the transaction the completion is written in
     * @param context the execution's key, token, attempt and downstream key
     * @return the result, encoded by the engine and committed with the writes
     * @throws Exception any failure: the transaction rolls back and the engine classifies it
     */
    T execute(Handle handle, ExecutionContext context) throws Exception;
}
