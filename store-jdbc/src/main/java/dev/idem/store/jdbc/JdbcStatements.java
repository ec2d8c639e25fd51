package dev.idem.store.jdbc;

import dev.idem.store.jdbc.internal.Sql;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The SQL the store issues for one dialect and table, as text: for diagnostics and raw
 * baselines that run the store's own statements with nothing around them (the benchmarks module
 * measures the store against them). The store issues exactly these; their named parameters are
 * {@code :scope}, {@code :operation}, {@code :key} and those of each statement below, and every
 * statement reads {@value #CLOCK_PARAMETER} (bind null for the database clock). The text may
 * change between versions together with the store.
 */
public final class JdbcStatements {
    /** The bind parameter that overrides the database clock; null means the database's own. */
    public static final String CLOCK_PARAMETER = Sql.CLOCK;

    private final Sql sql;

    private JdbcStatements(Sql sql) {
        this.sql = sql;
    }

    /**
     * The statements for {@code table} in {@code dialect}.
     *
     * @param dialect the database's dialect
     * @param table the table, as the store was given it
     * @return the statements
     * @throws IllegalArgumentException if {@code table} is not a plain (optionally schema-qualified) name
     */
    public static JdbcStatements of(JdbcDialect dialect, String table) {
        Objects.requireNonNull(dialect, "dialect");
        if (table == null || !table.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
            throw new IllegalArgumentException("not a plain table name: " + table);
        }
        return new JdbcStatements(new Sql(dialect, table));
    }

    /**
     * PostgreSQL: the whole claim as one statement ({@code :fp}, {@code :token}, {@code :leaseMs},
     * {@code :lifeMs}); MySQL: one {@code CALL} of the claim procedure; H2: null (the claim is
     * {@link #lockRow}, {@link #selectNow} and {@link #insertRow} in one transaction).
     *
     * @return the statement, or null
     */
    public @Nullable String claim() {
        return sql.claim;
    }

    /**
     * H2: reads and row-locks the key's record; null where the dialect does not use it.
     *
     * @return the statement, or null
     */
    public @Nullable String lockRow() {
        return sql.lockRow;
    }

    /**
     * The clock alone, in epoch milliseconds.
     *
     * @return the statement
     */
    public String selectNow() {
        return sql.selectNow;
    }

    /**
     * H2: inserts a fresh in-progress row ({@code :fp}, {@code :token}, {@code :leaseUntil},
     * {@code :expiresAt}, {@code :now});
     * null where the dialect does not use it.
     *
     * @return the statement, or null
     */
    public @Nullable String insertRow() {
        return sql.insertRow;
    }

    /**
     * The fenced completion ({@code :token}, {@code :outcome}, {@code :ttlMs}).
     *
     * @return the statement
     */
    public String complete() {
        return sql.complete;
    }
}
