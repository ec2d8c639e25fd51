package dev.idem.messaging;

import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The real databases the JDBC inbox tests run against, each started once per test JVM on
 * first use (holder classes) and stopped by a shutdown hook; the pattern of store-jdbc's tests.
 * Every test works under its own random source, so the shared tables need no cleaning.
 */
enum Database {
    H2,
    POSTGRES;

    DataSource dataSource() {
        return this == H2 ? H2Holder.DS : PgHolder.DS;
    }

    JdbcIdempotencyStore store() {
        return JdbcIdempotencyStore.builder(dataSource()).build();
    }

    private static final class PgHolder {
        static final EmbeddedPostgres PG;
        static final DataSource DS;

        static {
            try {
                PG = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            DS = PG.getPostgresDatabase();
            JdbcIdempotencyStore.builder(DS).build().createTableIfNotExists();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    PG.close();
                } catch (IOException ignored) {
                    // the JVM is going away; the temp directory is left for the OS
                }
            }));
        }
    }

    private static final class H2Holder {
        static final JdbcDataSource DS = new JdbcDataSource();

        static {
            DS.setURL("jdbc:h2:mem:inbox;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
            DS.setUser("sa");
            JdbcIdempotencyStore.builder(DS).build().createTableIfNotExists();
        }
    }
}
