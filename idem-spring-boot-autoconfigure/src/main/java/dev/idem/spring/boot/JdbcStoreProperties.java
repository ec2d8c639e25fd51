package dev.idem.spring.boot;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code idem.store.jdbc.*}: the JDBC store over the application's DataSource
 * ({@link StoreConfigurations.Jdbc}); the names are those store-jdbc's provider reads.
 *
 * @param table The record table.
 * @param schema The schema (or MySQL database) of the table; default: the connection's.
 * @param dialect postgresql, mysql or h2; detected from the connection when unset.
 * @param createTable Whether to create (or upgrade) the table at startup.
 * @param queryTimeout The timeout of each statement; the store's default (10 s) when unset.
 * @param maxOutcomeBytes The largest outcome stored, in bytes; the store's default when unset.
 */
@ConfigurationProperties(prefix = "idem.store.jdbc")
record JdbcStoreProperties(
        @DefaultValue("idem_record") String table,
        @Nullable String schema,
        @Nullable String dialect,
        boolean createTable,
        @Nullable Duration queryTimeout,
        @Nullable Integer maxOutcomeBytes) {
}
