package dev.idem.outbox.jdbc;

import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.testsupport.jdbc.SharedDatabase;
import javax.sql.DataSource;

/**
 * The three real databases the outbox tests run against ({@link SharedDatabase}: started once
 * per test JVM), with the dialect each speaks. Every test uses its own table, so tests never see
 * each other's rows.
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

    DataSource dataSource() {
        return database.dataSource();
    }
}
