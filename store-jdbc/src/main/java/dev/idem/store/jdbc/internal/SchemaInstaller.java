package dev.idem.store.jdbc.internal;

import dev.idem.store.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Runs the shipped DDL ({@link Schema#statements}) so that it can be repeated on every
 * start, by every node, also against a table of an earlier version: tables and indexes
 * use {@code IF NOT EXISTS}; on MySQL/MariaDB, which has neither {@code ADD COLUMN IF NOT
 * EXISTS} nor (before 8.0.29) {@code CREATE PROCEDURE IF NOT EXISTS}, columns and
 * procedures are looked up in {@code information_schema} first, and losing a race with
 * another node creating them is accepted.
 */
public final class SchemaInstaller {
    private static final int MYSQL_DUPLICATE_COLUMN = 1060;
    private static final int MYSQL_ROUTINE_EXISTS = 1304;

    private SchemaInstaller() {
    }

    /**
     * Installs or upgrades the schema of {@code table} in {@code schema}.
     *
     * @param jdbi the user's Jdbi
     * @param dialect the dialect
     * @param schema the schema, or null for the connection's current one
     * @param table the table name
     * @throws SQLException if the database refuses
     */
    public static void install(Jdbi jdbi, JdbcDialect dialect, String schema, String table) throws SQLException {
        List<String> ddl = Schema.statements(dialect, schema, table);
        jdbi.useHandle(h -> {
            for (String statement : ddl) {
                String procedure = Schema.procedureName(statement);
                String[] column = Schema.addedColumn(statement);
                if (procedure != null) {
                    createProcedureIfMissing(h, procedure, statement);
                } else if (column != null) {
                    addColumnIfMissing(h, column[0], column[1], statement);
                } else {
                    h.execute(statement);
                }
            }
        });
    }

    // Dropping and recreating would break the claims of running nodes in between: create
    // only when missing.
    private static void createProcedureIfMissing(Handle h, String qualifiedName, String statement)
            throws SQLException {
        String[] name = split(qualifiedName);
        boolean exists = h.createQuery("SELECT COUNT(*) FROM information_schema.ROUTINES"
                + " WHERE ROUTINE_SCHEMA = COALESCE(:routineSchema, DATABASE()) AND ROUTINE_NAME = :routine"
                + " AND ROUTINE_TYPE = 'PROCEDURE'")
                .bind("routineSchema", name[0]).bind("routine", name[1]).mapTo(Integer.class).one() > 0;
        if (!exists) {
            executeTolerating(h, statement, MYSQL_ROUTINE_EXISTS);
        }
    }

    private static void addColumnIfMissing(Handle h, String qualifiedTable, String column, String statement)
            throws SQLException {
        String[] name = split(qualifiedTable);
        boolean exists = h.createQuery("SELECT COUNT(*) FROM information_schema.COLUMNS"
                + " WHERE TABLE_SCHEMA = COALESCE(:tableSchema, DATABASE()) AND TABLE_NAME = :tableName"
                + " AND COLUMN_NAME = :column")
                .bind("tableSchema", name[0]).bind("tableName", name[1]).bind("column", column)
                .mapTo(Integer.class).one() > 0;
        if (!exists) {
            executeTolerating(h, statement, MYSQL_DUPLICATE_COLUMN);
        }
    }

    // Plain JDBC: a procedure body is not a Jdbi template (it holds colons in literals).
    private static void executeTolerating(Handle h, String statement, int alreadyDoneCode) throws SQLException {
        try (Statement s = h.getConnection().createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            if (e.getErrorCode() != alreadyDoneCode) {
                throw e;
            }
        }
    }

    private static String[] split(String qualifiedName) {
        int dot = qualifiedName.indexOf('.');
        return new String[] {dot < 0 ? null : qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1)};
    }
}
