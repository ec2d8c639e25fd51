package dev.idem.store.jdbc;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
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
    /** The property naming the database user. */
    public static final String USER = "idem.store.jdbc.user";
    /** The property naming the database password. */
    public static final String PASSWORD = "idem.store.jdbc.password";
    /** The property naming the record table. */
    public static final String TABLE = "idem.store.jdbc.table";
    /** The property naming the table's schema. */
    public static final String SCHEMA = "idem.store.jdbc.schema";
    /** The property naming the dialect. */
    public static final String DIALECT = "idem.store.jdbc.dialect";
    /** The property that creates (or upgrades) the table at startup. */
    public static final String CREATE_TABLE = "idem.store.jdbc.create-table";
    /** The property naming each statement's timeout. */
    public static final String QUERY_TIMEOUT = "idem.store.jdbc.query-timeout";
    /** The property naming the largest outcome the store holds. */
    public static final String MAX_OUTCOME_BYTES = "idem.store.jdbc.max-outcome-bytes";

    /** Public no-argument constructor for ServiceLoader. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public IdempotencyStore create(Context context) {
        String url = property(context, URL).orElseThrow(() -> new IllegalStateException(
                "the jdbc idempotency store needs a JDBC URL: set the property " + URL
                        + " (and idem.store.jdbc.user / idem.store.jdbc.password), or build JdbcIdempotencyStore"
                        + " explicitly"));
        Properties props = new Properties();
        property(context, USER).ifPresent(u -> props.setProperty("user", u));
        property(context, PASSWORD).ifPresent(p -> props.setProperty("password", p));
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(Jdbi.create(url, props));
        property(context, TABLE).ifPresent(b::tableName);
        property(context, SCHEMA).ifPresent(b::schema);
        property(context, DIALECT).ifPresent(d -> b.dialect(JdbcDialect.fromSetting(d)));
        context.duration(QUERY_TIMEOUT).ifPresent(b::queryTimeout);
        property(context, MAX_OUTCOME_BYTES)
                .ifPresent(v -> b.maxOutcomeBytes(parseInt(MAX_OUTCOME_BYTES, v)));
        JdbcIdempotencyStore store = b.build();
        if (property(context, CREATE_TABLE).map(v -> parseBoolean(CREATE_TABLE, v))
                .orElse(false)) {
            store.createTableIfNotExists();
        }
        return store;
    }

    private static Optional<String> property(Context context, String name) {
        return context.property(name);
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
