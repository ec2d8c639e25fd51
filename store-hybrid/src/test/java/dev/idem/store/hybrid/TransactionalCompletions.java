package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import java.time.Duration;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The hybrid store in the JDBC store's transactional mode, as the kits see a store: every complete
 * and checkpoint is made as an application makes it, in its own database transaction next to a
 * business write (a row of {@code hybrid_kit_effect}), through {@link HybridIdempotencyStore#completeWithin}
 * and {@link HybridIdempotencyStore#checkpointWithin}; a refusal rolls the transaction back, and the
 * gate hears of a completion or a journal entry only after the commit. Everything else is the
 * hybrid store's own call.
 */
final class TransactionalCompletions extends ForwardingIdempotencyStore {
    private final HybridIdempotencyStore store;
    private final Jdbi jdbi;

    TransactionalCompletions(HybridIdempotencyStore store, DataSource dataSource) {
        super(store);
        this.store = store;
        this.jdbi = Jdbi.create(dataSource);
        Table.create(jdbi);
    }

    /** Thrown inside the transaction to roll it back when the database refused the token. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused() {
            super(null, null, false, false);
        }
    }

    /** The business table, created once per JVM. */
    private static final class Table {
        private static boolean created;

        static synchronized void create(Jdbi jdbi) {
            if (!created) {
                jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS hybrid_kit_effect (idem_key VARCHAR(600)"
                        + " NOT NULL, token BIGINT NOT NULL, kind VARCHAR(16) NOT NULL)"));
                created = true;
            }
        }
    }

    private boolean inTransaction(String kind, IdempotencyKey key, long token, Predicate<Handle> write) {
        try {
            return jdbi.inTransaction(h -> {
                h.createUpdate("INSERT INTO hybrid_kit_effect (idem_key, token, kind) VALUES (:k, :t, :kind)")
                        .bind("k", key.toString()).bind("t", token).bind("kind", kind).execute();
                if (!write.test(h)) {
                    throw new Refused();
                }
                return true;
            });
        } catch (Refused e) {
            return false;
        } catch (JdbiException e) {
            throw new StoreUnavailableException("business transaction failed: " + e.getMessage(), e, true);
        }
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return inTransaction("complete", key, fencingToken,
                h -> store.completeWithin(h, key, fencingToken, outcome, ttl));
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return inTransaction("checkpoint", key, fencingToken,
                h -> store.checkpointWithin(h, key, fencingToken, journal));
    }

    @Override
    public void close() {
        // the kit closes the hybrid store itself
    }
}
