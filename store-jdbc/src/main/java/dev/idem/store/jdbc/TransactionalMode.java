package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.store.jdbc.internal.Failures;
import java.util.Objects;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.transaction.TransactionException;

/**
 * The transactional mode behind {@link JdbcIdempotencyStore#inTransaction} and
 * {@link JdbcIdempotencyStore#checkpointInTransaction}: the caller's work and one fenced
 * write of the record (a completion or a checkpoint) in one database transaction, rolled
 * back together when the fence refuses.
 */
final class TransactionalMode {
    /** The fenced write of the record on the work's transaction. */
    interface FencedWrite {
        boolean write(Handle tx, byte[] bytes);
    }

    private TransactionalMode() {
    }

    static <T, X extends Exception> T run(Jdbi jdbi, String operation, IdempotencyKey key, long fencingToken,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work, FencedWrite fenced) throws X {
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(work, "work");
        Handle handle;
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
                    throw new LeaseLostException(key, fencingToken);
                }
                return value;
            });
        } catch (TransactionException e) {
            throw Failures.unavailable("transaction commit", e);
        }
    }
}
