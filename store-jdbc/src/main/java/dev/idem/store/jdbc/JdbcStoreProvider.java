package dev.idem.store.jdbc;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import java.util.Locale;
import java.util.Properties;
import org.jdbi.v3.core.Jdbi;

/**
 * ServiceLoader entry ({@code jdbc}): builds a {@link JdbcIdempotencyStore} from engine or
 * system properties, for applications that select the store by class path.
 *
 * <ul>
 *   <li>{@code idem.jdbc.url} (required): the JDBC URL; the driver must be on the class path;</li>
 *   <li>{@code idem.jdbc.user}, {@code idem.jdbc.password}: credentials, if any;</li>
 *   <li>{@code idem.jdbc.table}, {@code idem.jdbc.schema}: the table (default {@code idem_record});</li>
 *   <li>{@code idem.jdbc.dialect}: {@code postgresql}, {@code mysql} or {@code h2} to skip detection;</li>
 *   <li>{@code idem.jdbc.createTable}: {@code true} to create the table if it does not exist.</li>
 * </ul>
 *
 * Connections then come from {@link java.sql.DriverManager}, one per operation, without a
 * pool: good for small services and tests. Production services should build the store
 * with {@link JdbcIdempotencyStore#builder(javax.sql.DataSource)} over their pooled
 * DataSource and hand it to the engine explicitly.
 */
public final class JdbcStoreProvider implements StoreProvider {
    /** The property naming the JDBC URL. */
    public static final String URL = "idem.jdbc.url";

    /** Public no-argument constructor for ServiceLoader. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public IdempotencyStore create(Context context) {
        String url = context.property(URL).orElseThrow(() -> new IllegalStateException(
                "the jdbc idempotency store needs a JDBC URL: set the property " + URL
                        + " (and idem.jdbc.user / idem.jdbc.password), or build JdbcIdempotencyStore explicitly"));
        Properties props = new Properties();
        context.property("idem.jdbc.user").ifPresent(u -> props.setProperty("user", u));
        context.property("idem.jdbc.password").ifPresent(p -> props.setProperty("password", p));
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(Jdbi.create(url, props));
        context.property("idem.jdbc.table").ifPresent(b::tableName);
        context.property("idem.jdbc.schema").ifPresent(b::schema);
        context.property("idem.jdbc.dialect").ifPresent(d -> b.dialect(parseDialect(d)));
        JdbcIdempotencyStore store = b.build();
        if (context.property("idem.jdbc.createTable").map(Boolean::parseBoolean).orElse(false)) {
            store.createTableIfNotExists();
        }
        return store;
    }

    private static JdbcDialect parseDialect(String value) {
        try {
            return JdbcDialect.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("idem.jdbc.dialect must be postgresql, mysql or h2 but was '" + value + "'", e);
        }
    }
}
