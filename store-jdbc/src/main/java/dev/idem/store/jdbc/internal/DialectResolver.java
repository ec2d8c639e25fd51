package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.store.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Arrays;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * The store's dialect operations, found on first use from the connection's metadata unless
 * the dialect was configured, and kept. Detecting lazily lets a store be built while the
 * database is still down. Thread-safe: two threads may both detect, with the same answer.
 */
public final class DialectResolver {
    private static final int CLAIM_TRIES = 8;

    private final Jdbi jdbi;
    private final String table;
    private final int queryTimeoutSeconds;
    private final Clock clock;
    private volatile DialectOperations ops;

    /**
     * A resolver for one table.
     *
     * @param jdbi the user's Jdbi
     * @param dialect the configured dialect, or null to detect it
     * @param table the validated, possibly schema-qualified table name
     * @param queryTimeoutSeconds the JDBC query timeout of every statement; 0 for none
     * @param clock the test clock replacing the database clock, or null for the database clock
     */
    public DialectResolver(Jdbi jdbi, JdbcDialect dialect, String table, int queryTimeoutSeconds, Clock clock) {
        this.jdbi = jdbi;
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.clock = clock;
        if (dialect != null) {
            this.ops = DialectOperations.of(jdbi, dialect, table, queryTimeoutSeconds, clock);
        }
    }

    /**
     * The operations, detecting the dialect if not yet known.
     *
     * @return the operations
     * @throws StoreUnavailableException if the database cannot be asked
     * @throws IllegalStateException if the database is not one of the supported dialects
     */
    public DialectOperations get() {
        DialectOperations o = ops;
        if (o != null) {
            return o;
        }
        String product;
        try {
            product = jdbi.withHandle(h -> h.getConnection().getMetaData().getDatabaseProductName());
        } catch (JdbiException | SQLException e) {
            throw Failures.unavailable("dialect detection", e);
        }
        JdbcDialect d = JdbcDialect.fromProductName(product).orElseThrow(() -> new IllegalStateException(
                "database '" + product + "' is not supported; set JdbcIdempotencyStore.Builder.dialect(...) "
                        + "if it speaks one of " + Arrays.toString(JdbcDialect.values())));
        o = DialectOperations.of(jdbi, d, table, queryTimeoutSeconds, clock);
        ops = o;
        return o;
    }

    /**
     * The dialect if it is known yet, without asking the database.
     *
     * @return the dialect, or null before the first detection
     */
    public JdbcDialect known() {
        DialectOperations o = ops;
        return o == null ? null : o.dialect();
    }

    /**
     * The claim, repeated while it loses a race with a concurrent insert of the same key or is
     * a deadlock victim (nothing was written then, and the next try sees the winner's row).
     *
     * @param key the key
     * @param fp the fingerprint
     * @param token the caller's token
     * @param leaseMs the lease in ms
     * @param lifeMs the record's life, at least the lease, in ms
     * @return the claim's result
     * @throws StoreUnavailableException if the database fails, or the races go on
     */
    public ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long leaseMs, long lifeMs) {
        DialectOperations o = get();
        for (int attempt = 1; attempt <= CLAIM_TRIES; attempt++) {
            try {
                ClaimResult result = o.claim(key, fp, token, leaseMs, lifeMs);
                if (result != null) {
                    return result;
                }
            } catch (JdbiException e) {
                boolean race = Failures.isDuplicateKey(e) || Failures.isTransientConflict(e);
                if (!race || attempt >= CLAIM_TRIES) {
                    throw Failures.unavailable("claim", e);
                }
            } catch (SQLException e) {
                throw Failures.unavailable("claim", e);
            }
        }
        throw new StoreUnavailableException("idempotency store claim of " + key
                + " kept racing with concurrent writers; try again", null, true);
    }
}
