package dev.idem.store.jdbc;

import dev.idem.testsupport.jdbc.SharedDatabase;
import dev.idem.testsupport.mariadb.EmbeddedMariaDb;
import javax.sql.DataSource;

/**
 * The three real databases the tests run against ({@link SharedDatabase}: started once per test
 * JVM, two pools each), with the dialect each speaks and the default table created once. Every
 * test works under its own random scope, so the shared tables need no cleaning.
 */
enum Backend {
    POSTGRES(JdbcDialect.POSTGRESQL, SharedDatabase.POSTGRES),
    MARIADB(JdbcDialect.MYSQL, SharedDatabase.MARIADB),
    H2(JdbcDialect.H2, SharedDatabase.H2);

    final JdbcDialect dialect;
    private final SharedDatabase database;

    Backend(JdbcDialect dialect, SharedDatabase database) {
        this.dialect = dialect;
        this.database = database;
    }

    /** The pooled DataSource the stores under test use. */
    DataSource dataSource() {
        return database.initializedOnce("idem-store-jdbc",
                ds -> JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists());
    }

    /** A second, independent pool on the same database (another "process"). */
    DataSource otherDataSource() {
        dataSource();
        return database.otherDataSource();
    }

    /** The JDBC URL of {@link #dataSource()}, for {@link JdbcStoreProvider}. */
    String url() {
        dataSource();
        return database.url();
    }

    /** The database user of {@link #url()}. */
    String user() {
        return database.user();
    }

    /**
     * Starts every backend this platform has (once per JVM; later calls return at once). A
     * backend that cannot start is left to the tests that use it, which report why.
     */
    static void startAll() {
        for (Backend b : values()) {
            if (b != MARIADB || EmbeddedMariaDb.hasServerBinary()) {
                try {
                    b.dataSource();
                } catch (RuntimeException | Error e) {
                    // reported by the tests that use this backend
                }
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
}
