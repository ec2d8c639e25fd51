package dev.idem.store.jdbc.internal;

import dev.idem.store.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Arrays;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * A store's {@link DialectOperations}: built at once when the dialect is configured,
 * otherwise on first use from the connection's metadata, so that building a store never
 * needs the database to be up.
 */
public final class LazyOperations implements Supplier<DialectOperations> {
    private final Jdbi jdbi;
    private final String table;
    private final int queryTimeoutSeconds;
    private final Clock clock;
    // Detection is idempotent, so two threads racing on first use may both detect; either result is right.
    private volatile DialectOperations ops;

    /**
     * The operations on {@code table}.
     *
     * @param jdbi the user's Jdbi
     * @param dialect the configured dialect, or null to detect it on first use
     * @param table the validated, possibly schema-qualified table name
     * @param queryTimeoutSeconds the JDBC query timeout of every statement; 0 for none
     * @param clock the test clock replacing the database clock, or null for the database clock
     */
    public LazyOperations(Jdbi jdbi, JdbcDialect dialect, String table, int queryTimeoutSeconds, Clock clock) {
        this.jdbi = jdbi;
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.clock = clock;
        if (dialect != null) {
            this.ops = DialectOperations.of(jdbi, dialect, table, queryTimeoutSeconds, clock);
        }
    }

    /**
     * The operations, detecting the dialect if it is not yet known.
     *
     * @return the operations
     * @throws dev.idem.api.StoreUnavailableException if the connection's metadata cannot be read
     * @throws IllegalStateException if the database is not one of the supported dialects
     */
    @Override
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
     * The dialect if already known, without touching the database.
     *
     * @return the dialect, or null before detection
     */
    public JdbcDialect known() {
        DialectOperations o = ops;
        return o == null ? null : o.dialect();
    }
}
