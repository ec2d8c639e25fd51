package dev.idem.testsupport.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * HikariCP pools for tests (declare {@code com.zaxxer:HikariCP}): up to 20 connections, none kept
 * idle, no check at creation (a pool on a server that is still starting is fine), and callers
 * fail within a few seconds when the database is gone instead of queueing for Hikari's 30 s.
 */
public final class TestPools {
    private TestPools() {
    }

    /**
     * A pool waiting at most 5 s for a connection.
     *
     * @param url the JDBC URL
     * @param user the user (no password)
     * @param name the pool's name, for thread names and errors
     * @return the pool; the caller closes it
     */
    public static HikariDataSource pool(String url, String user, String name) {
        return pool(url, user, name, Duration.ofSeconds(5));
    }

    /**
     * A pool waiting at most {@code connectionTimeout} for a connection.
     *
     * @param url the JDBC URL
     * @param user the user (no password)
     * @param name the pool's name, for thread names and errors
     * @param connectionTimeout how long a caller waits for a connection (at least 250 ms)
     * @return the pool; the caller closes it
     */
    public static HikariDataSource pool(String url, String user, String name, Duration connectionTimeout) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPoolName(name);
        c.setMaximumPoolSize(20);
        c.setMinimumIdle(0);
        c.setConnectionTimeout(connectionTimeout.toMillis());
        c.setValidationTimeout(Math.min(1_000, connectionTimeout.toMillis()));
        c.setInitializationFailTimeout(-1);
        return new HikariDataSource(c);
    }

    /**
     * Waits until {@code dataSource} hands out a connection, at most {@code timeout}: a server's
     * first connection on a loaded machine can take longer than a pool's fail-fast timeout.
     *
     * @param dataSource the data source
     * @param timeout the longest wait
     * @throws IllegalStateException with the last error if no connection came in time
     */
    public static void awaitReachable(DataSource dataSource, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                dataSource.getConnection().close();
                return;
            } catch (SQLException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("database not reachable within " + timeout, e);
                }
            }
        }
    }
}
