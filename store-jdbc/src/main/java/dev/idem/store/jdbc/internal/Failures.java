package dev.idem.store.jdbc.internal;

import dev.idem.api.StoreUnavailableException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.function.Supplier;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.JdbiException;

/** Turns JDBC and Jdbi failures into {@link StoreUnavailableException}s, deciding whether a retry may help. */
public final class Failures {
    private Failures() {
    }

    /** Runs {@code call}, turning a Jdbi failure into {@link #unavailable} of {@code operation}. */
    public static <T> T orUnavailable(String operation, Supplier<T> call) {
        try {
            return call.get();
        } catch (JdbiException e) {
            throw unavailable(operation, e);
        }
    }

    /** The innermost {@link SQLException} in the cause chain, or null. */
    public static SQLException sqlCause(Throwable t) {
        SQLException found = null;
        for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
            if (c instanceof SQLException) {
                found = (SQLException) c;
            }
        }
        return found;
    }

    /** The SQLState of the innermost SQLException, or "" if there is none. */
    public static String sqlState(Throwable t) {
        SQLException e = sqlCause(t);
        return e == null || e.getSQLState() == null ? "" : e.getSQLState();
    }

    /** A unique-key violation (a concurrent insert of the same key won the race). */
    public static boolean isDuplicateKey(Throwable t) {
        SQLException e = sqlCause(t);
        if (e == null) {
            return false;
        }
        // 23505: PostgreSQL and H2; MySQL/MariaDB report 23000 with vendor code 1062.
        return "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062;
    }

    /** A deadlock or serialization failure: the statement was rolled back and may simply be repeated. */
    public static boolean isTransientConflict(Throwable t) {
        SQLException e = sqlCause(t);
        if (e == null) {
            return false;
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        // Not lock-wait timeouts (MySQL 1205): each already waited a long time; retrying would multiply it.
        return state.equals("40001") || state.equals("40P01") || e.getErrorCode() == 1213;
    }

    /**
     * Wraps a failure of {@code operation}. Connection problems, timeouts, conflicts and
     * resource shortages are retryable; a missing table, a syntax or permission error is
     * not (repeating the call cannot fix it).
     */
    public static StoreUnavailableException unavailable(String operation, Throwable t) {
        if (t instanceof StoreUnavailableException) {
            return (StoreUnavailableException) t;
        }
        SQLException e = sqlCause(t);
        String state = e == null || e.getSQLState() == null ? "" : e.getSQLState();
        boolean retryable = isRetryable(t, e, state);
        String message = "idempotency store " + operation + " failed"
                + (state.isEmpty() ? "" : " (SQLState " + state + ")") + ": " + describe(t, e)
                + (state.startsWith("42") ? " - does the idempotency table exist, upgraded to the latest script (and on MySQL/MariaDB its claim_v3 and"
                        + " extend_v2 procedures, created by the V4 and V3 scripts or createTableIfNotExists())?"
                        + " See the store-jdbc README" : "");
        return new StoreUnavailableException(message, t, retryable);
    }

    private static boolean isRetryable(Throwable t, SQLException e, String state) {
        if (t instanceof ConnectionException) {
            return true;
        }
        if (e == null) {
            return true;
        }
        if (e instanceof SQLTransientException || e instanceof SQLRecoverableException
                || e instanceof SQLNonTransientConnectionException) {
            return true;
        }
        if (state.startsWith("42") || state.startsWith("28") || state.startsWith("22")) {
            return false;
        }
        return true;
    }

    private static String describe(Throwable t, SQLException e) {
        Throwable shown = e != null ? e : t;
        String m = shown.getMessage();
        return shown.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
