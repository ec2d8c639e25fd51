package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.StoreLimits;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.transaction.TransactionException;

/**
 * The store's transactional mode: a fenced completion or checkpoint on a handle the caller
 * controls, or the caller's work and that fenced write in one new transaction, rolled back
 * together when the fence refuses. The store's public methods document the contract.
 */
public final class TransactionalCompletion {
    private final Jdbi jdbi;
    private final Supplier<DialectOperations> ops;
    private final int maxBytes;

    /**
     * The transactional mode of one store.
     *
     * @param jdbi the user's Jdbi, which opens the transactions
     * @param ops the store's operations (the dialect may be detected on first use)
     * @param maxBytes the largest outcome or journal accepted
     */
    public TransactionalCompletion(Jdbi jdbi, Supplier<DialectOperations> ops, int maxBytes) {
        this.jdbi = jdbi;
        this.ops = ops;
        this.maxBytes = maxBytes;
    }

    /**
     * The fenced completion on the caller's handle.
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param outcome the outcome
     * @param ttl how long the completed record lives
     * @return false if the token is not current
     */
    public boolean completeWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] outcome,
            Duration ttl) {
        Objects.requireNonNull(handle, "handle");
        Arguments.checkKey(key);
        StoreLimits.checkSize("outcome", outcome, maxBytes);
        long ttlMs = Arguments.millis("ttl", ttl);
        return Failures.orUnavailable("complete", () -> ops.get().complete(handle, key, fencingToken, outcome, ttlMs));
    }

    /**
     * The work and the fenced completion of its encoded result in one new transaction.
     *
     * @param <T> the work's result
     * @param <X> the checked exception the work may throw
     * @param key the key
     * @param fencingToken the caller's token
     * @param ttl how long the completed record lives
     * @param encoder turns the work's result into the stored outcome
     * @param work the business writes
     * @return the work's result, committed with the completion
     * @throws X what the work threw (rolled back)
     */
    public <T, X extends Exception> T inTransaction(IdempotencyKey key, long fencingToken, Duration ttl,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work) throws X {
        Arguments.checkKey(key);
        long ttlMs = Arguments.millis("ttl", ttl);
        DialectOperations o = ops.get();
        return run("complete", key, fencingToken, encoder, work, (tx, outcome) -> {
            StoreLimits.checkSize("outcome", outcome, maxBytes);
            return o.complete(tx, key, fencingToken, outcome, ttlMs);
        });
    }

    /**
     * The fenced checkpoint on the caller's handle.
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal the whole new journal
     * @return false if the token is not current
     */
    public boolean checkpointWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] journal) {
        Objects.requireNonNull(handle, "handle");
        Arguments.checkKey(key);
        StoreLimits.checkSize("journal", journal, maxBytes);
        return Failures.orUnavailable("checkpoint", () -> ops.get().checkpoint(handle, key, fencingToken, journal));
    }

    /**
     * A step's work and the fenced checkpoint of its journal in one new transaction.
     *
     * @param <T> the step's result
     * @param <X> the checked exception the work may throw
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal turns the step's result into the whole new journal
     * @param work the step's business writes
     * @return the step's result, committed with its journal entry
     * @throws X what the work threw (rolled back)
     */
    public <T, X extends Exception> T checkpointInTransaction(IdempotencyKey key, long fencingToken,
            Function<? super T, byte[]> journal, HandleCallback<T, X> work) throws X {
        Arguments.checkKey(key);
        DialectOperations o = ops.get();
        return run("checkpoint", key, fencingToken, journal, work, (tx, bytes) -> {
            StoreLimits.checkSize("journal", bytes, maxBytes);
            return o.checkpoint(tx, key, fencingToken, bytes);
        });
    }

    /** The fenced write of the record on the work's transaction. */
    private interface FencedWrite {
        boolean write(Handle tx, byte[] bytes);
    }

    private <T, X extends Exception> T run(String operation, IdempotencyKey key, long fencingToken,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work, FencedWrite fenced) throws X {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(work, "work");
        Handle handle;
        // Opened apart from the transaction so that a missing connection is told from a failed
        // commit: the work has not run in the first case.
        try {
            handle = jdbi.open();
        } catch (JdbiException e) {
            throw Failures.unavailable("transaction start", e);
        }
        try (handle) {
            return handle.inTransaction(tx -> {
                T value = work.withHandle(tx);
                byte[] bytes = Objects.requireNonNull(encoder.apply(value), "encoder returned null");
                boolean written;
                try {
                    written = fenced.write(tx, bytes);
                } catch (JdbiException e) {
                    throw Failures.unavailable(operation, e);
                }
                if (!written) {
                    // Thrown inside the callback, so Jdbi rolls the work back with it.
                    throw new LeaseLostException(key, fencingToken);
                }
                return value;
            });
        } catch (TransactionException e) {
            throw Failures.unavailable("transaction commit", e);
        }
    }
}
