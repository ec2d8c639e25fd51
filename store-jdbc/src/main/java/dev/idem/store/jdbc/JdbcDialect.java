package dev.idem.store.jdbc;

import java.util.Locale;
import java.util.Optional;

/**
 * The SQL flavours the JDBC store speaks. Normally detected from the connection's
 * {@link java.sql.DatabaseMetaData#getDatabaseProductName() product name}; set one
 * explicitly on the builder to skip detection (for example when the database may be down
 * while the application starts, or behind a proxy that reports another name).
 */
public enum JdbcDialect {
    /** PostgreSQL 12 or later; the claim is one {@code INSERT ... ON CONFLICT ... RETURNING}. */
    POSTGRESQL("postgresql"),
    /**
     * MySQL 8 and MariaDB 10.6 or later; the claim and the lease extension are one
     * {@code CALL} of a stored procedure created with the table, because neither has
     * {@code RETURNING} on an upsert.
     */
    MYSQL("mysql"),
    /**
     * H2 2.x; "now" is the clock of the JVM that runs the database (this one for in-memory
     * H2), and a claim is a short local transaction (no network round trip in process).
     */
    H2("h2");

    private final String resourceName;

    JdbcDialect(String resourceName) {
        this.resourceName = resourceName;
    }

    /**
     * The folder name of this dialect's schema scripts under {@code dev/idem/store/jdbc/schema/}.
     *
     * @return the folder name
     */
    public String resourceName() {
        return resourceName;
    }

    /**
     * The dialect an {@code idem.store.jdbc.dialect} setting names (read alike by the store provider
     * and idem's Spring Boot and Quarkus configuration): {@code postgresql}, {@code mysql} or
     * {@code h2}, in any case, blanks around it ignored.
     *
     * @param setting the configured value
     * @return the dialect it names
     * @throws IllegalStateException naming the property and the value, if it names none: a
     *     configuration error, raised while the application starts
     */
    public static JdbcDialect fromSetting(String setting) {
        for (JdbcDialect d : values()) {
            if (d.resourceName.equalsIgnoreCase(setting.trim())) {
                return d;
            }
        }
        throw new IllegalStateException(JdbcStoreProvider.DIALECT + " must be postgresql, mysql or h2 but was '"
                + setting + "'");
    }

    /**
     * The dialect for a JDBC product name ({@code PostgreSQL}, {@code MySQL}, {@code MariaDB},
     * {@code H2}), or empty if it is none of them.
     *
     * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}, may be null
     * @return the dialect, if known
     */
    public static Optional<JdbcDialect> fromProductName(String productName) {
        if (productName == null) {
            return Optional.empty();
        }
        String p = productName.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return Optional.of(POSTGRESQL);
        }
        if (p.contains("mysql") || p.contains("mariadb")) {
            return Optional.of(MYSQL);
        }
        if (p.equals("h2") || p.startsWith("h2 ")) {
            return Optional.of(H2);
        }
        return Optional.empty();
    }
}
