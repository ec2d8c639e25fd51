package dev.idem.store.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;

/**
 * The store's statement timeout on PostgreSQL, as the connection's network (socket read)
 * timeout for the length of one statement, restored afterwards. pgjdbc implements
 * {@code Statement.setQueryTimeout} with a task on a shared {@code java.util.Timer} that it
 * schedules, cancels and purges around every statement, waking the timer thread each time.
 * A socket timeout is a field of the socket. A
 * statement that runs into it fails with a connection error (retryable) and its connection
 * is closed; a connection that already has a shorter network timeout keeps it.
 */
final class NetworkTimeout implements StatementCustomizer {
    // pgjdbc ignores the executor (it aborts nothing asynchronously); the API requires one.
    private static final Executor DIRECT = Runnable::run;

    private final int millis;

    NetworkTimeout(int seconds) {
        this.millis = Math.multiplyExact(seconds, 1000);
    }

    @Override
    public void beforeExecution(PreparedStatement statement, StatementContext ctx) throws SQLException {
        Connection connection = ctx.getConnection();
        int before = connection.getNetworkTimeout();
        if (before != 0 && before <= millis) {
            return;
        }
        connection.setNetworkTimeout(DIRECT, millis);
        ctx.addCleanable(() -> {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(DIRECT, before);
            }
        });
    }
}
