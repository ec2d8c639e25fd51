package dev.idem.engine;

import dev.idem.api.store.IdempotencyStore;
import org.jspecify.annotations.Nullable;

/**
 * Work that stores its own success outcome atomically with its effect, for stores that
 * can join the caller's transaction (store-jdbc's transactional mode). It must encode the
 * result with {@link Completion#encode(Object)} and complete the record, fenced by
 * {@link ExecutionContext#fencingToken()}, inside the same transaction as its effect; if
 * the fenced completion matches nothing it must roll back and throw
 * {@link dev.idem.api.LeaseLostException}. Returning normally without completing the record
 * is a programming error: the engine detects it (the record is still IN_PROGRESS under this
 * execution's token), stores a final marker instead, and answers this call and every retry
 * with {@link OutcomeNotStoredException}.
 *
 * <p>Work bound to one store ({@code JdbcIdempotencyStore.transactional(...)}) says so through
 * {@link #store()}; an engine whose store is not backed by that store
 * ({@link IdempotencyStore#isBackedBy}) refuses it with {@link ForeignStoreWorkException}
 * before anything is claimed.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface AtomicWork<T> {
    /**
     * Performs the operation and stores its outcome in one transaction.
     *
     * @param context the execution's key, token and lease
     * @param completion what the work needs to write the completion in its own transaction
     * @return the work's result, stored and replayed
     * @throws Exception any failure; classified by the engine's {@link FailureClassifier}
     */
    T executeAndComplete(ExecutionContext context, Completion completion) throws Exception;

    /**
     * The store whose transaction this work completes the record in, if it is bound to one.
     *
     * @return that store; null (the default, and every lambda) when the work names none
     */
    default @Nullable IdempotencyStore store() {
        return null;
    }

    /** What the work needs to store the outcome itself. */
    interface Completion {
        /**
         * The bytes the engine would have stored for {@code value}; replays decode them.
         *
         * @param value the work's result
         * @return the bytes the engine would have stored for {@code value}
         */
        byte[] encode(Object value);

        /**
         * How long the completed record must live.
         *
         * @return how long the completed record must live
         */
        java.time.Duration ttl();
    }
}
