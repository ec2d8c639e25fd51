package dev.idem.store.jdbc;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import org.jdbi.v3.core.Jdbi;

/**
 * ServiceLoader entry ({@code jdbc}): builds a {@link JdbcIdempotencyStore} from engine or
 * system properties, for applications that select the store by class path.
 *
 * <ul>
 *   <li>{@value #URL} (required): the JDBC URL; the driver must be on the class path;</li>
 *   <li>{@code idem.store.jdbc.user}, {@code idem.store.jdbc.password}: credentials, if any;</li>
 *   <li>{@code idem.store.jdbc.table}, {@code idem.store.jdbc.schema}: the table (default {@code idem_record});</li>
 *   <li>{@code idem.store.jdbc.dialect}: {@code postgresql}, {@code mysql} or {@code h2} to skip detection;</li>
 *   <li>{@code idem.store.jdbc.create-table}: {@code true} to create (or upgrade) the table;</li>
 *   <li>{@code idem.store.jdbc.query-timeout}: a duration such as {@code 5s} (default 10 s);</li>
 *   <li>{@code idem.store.jdbc.max-outcome-bytes}: the largest outcome (default 4 MiB).</li>
 * </ul>
 * The store judges time by the database clock,
 * never the engine's clock: application nodes with skewed clocks cannot steal leases.
 *
 * <p>Connections come from {@link java.sql.DriverManager}, one per operation, without a
 * pool: good for small services and tests. Production services should build the store
 * with {@link JdbcIdempotencyStore#builder(javax.sql.DataSource)} over their pooled
 * DataSource and hand it to the engine explicitly.
 */
public final class JdbcStoreProvider implements StoreProvider {
    /** The property naming the JDBC URL. */
    public static final String URL = "idem.store.jdbc.url";
    private static final String PREFIX = "idem.store.jdbc.";

    /** Public no-argument constructor for ServiceLoader. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public IdempotencyStore create(Context context) {
        String url = property(context, "url").orElseThrow(() -> new IllegalStateException(
                "the jdbc idempotency store needs a JDBC URL: set the property " + URL
                        + " (and idem.store.jdbc.user / idem.store.jdbc.password), or build JdbcIdempotencyStore"
                        + " explicitly"));
        Properties props = new Properties();
        property(context, "user").ifPresent(u -> props.setProperty("user", u));
        property(context, "password").ifPresent(p -> props.setProperty("password", p));
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(Jdbi.create(url, props));
        property(context, "table").ifPresent(b::tableName);
        property(context, "schema").ifPresent(b::schema);
        property(context, "dialect").ifPresent(d -> b.dialect(parseDialect(d)));
        context.duration(PREFIX + "query-timeout").ifPresent(b::queryTimeout);
        property(context, "max-outcome-bytes")
                .ifPresent(v -> b.maxOutcomeBytes(parseInt(PREFIX + "max-outcome-bytes", v)));
        JdbcIdempotencyStore store = b.build();
        if (property(context, "create-table").map(v -> parseBoolean(PREFIX + "create-table", v))
                .orElse(false)) {
            store.createTableIfNotExists();
        }
        return store;
    }

    private static Optional<String> property(Context context, String name) {
        return context.property(PREFIX + name);
    }

    private static JdbcDialect parseDialect(String value) {
        try {
            return JdbcDialect.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(PREFIX + "dialect must be postgresql, mysql or h2 but was '" + value + "'",
                    e);
        }
    }

    private static boolean parseBoolean(String name, String v) {
        if ("true".equalsIgnoreCase(v.trim())) {
            return true;
        }
        if ("false".equalsIgnoreCase(v.trim())) {
            return false;
        }
        throw new IllegalStateException(name + " must be true or false but was '" + v + "'");
    }

    private static int parseInt(String name, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException(name + " must be a whole number of bytes but was '" + v + "'", e);
        }
    }
}
