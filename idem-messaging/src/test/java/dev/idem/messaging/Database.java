package dev.idem.messaging;

import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.jdbc.SharedDatabase;
import javax.sql.DataSource;

/**
 * The real databases the JDBC inbox tests run against ({@link SharedDatabase}: started once per
 * test JVM). Every test works under its own random source, so the shared tables need no cleaning.
 */
enum Database {
    H2(SharedDatabase.H2),
    POSTGRES(SharedDatabase.POSTGRES);

    private final SharedDatabase database;

    Database(SharedDatabase database) {
        this.database = database;
    }

    /** The shared database, with the default idempotency table created. */
    DataSource dataSource() {
        return database.initializedOnce("idem-messaging",
                ds -> JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists());
    }

    JdbcIdempotencyStore store() {
        return JdbcIdempotencyStore.builder(dataSource()).build();
    }
}
