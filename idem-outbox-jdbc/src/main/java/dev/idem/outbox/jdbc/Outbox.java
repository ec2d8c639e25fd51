package dev.idem.outbox.jdbc;

import dev.idem.outbox.jdbc.internal.OutboxSql;
import dev.idem.store.jdbc.JdbcDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The producer half of reliable events: {@link #enqueue(Handle, OutboxMessage)} writes a
 * message row <em>in the caller's transaction</em>, so the business write and the message
 * commit together or not at all; a {@link Relay} ({@link #relay(Publisher)}) later publishes
 * committed rows and marks them sent.
 *
 * <pre>{@code
 * jdbi.useTransaction(handle -> {
 *     charges.insert(handle, charge);
 *     outbox.enqueue(handle, OutboxMessage.of("charge.created", charge.customer(), json(charge)));
 * });
 * }</pre>
 *
 * Each message gets a stable event id at enqueue (given, or a random UUID), carried on every
 * publish, so a publish repeated after a relay crash is dropped by the consumer's inbox.
 *
 * <p>The table comes from the shipped DDL ({@code dev/idem/outbox/jdbc/schema/<dialect>/
 * V1__create_idem_outbox.sql}) or {@link #createTableIfNotExists()}. Times in the table are
 * epoch milliseconds on the application's clock (the {@link Clock} given here and to the relay),
 * so keep node clocks roughly in step: a writer whose clock runs ahead delays its messages by
 * the difference. Thread-safe; never closes the {@link Jdbi} or {@link DataSource} it was given.
 */
public final class Outbox {
    private final Jdbi jdbi;
    private final String schema;
    private final String table;
    private final String qualifiedTable;
    private final JdbcDialect configuredDialect;
    private final Clock clock;
    private final Supplier<String> eventIds;
    private volatile OutboxSql sql;
    private volatile JdbcDialect dialect;

    private Outbox(Builder b) {
        this.jdbi = b.jdbi;
        this.schema = b.schema;
        this.table = b.table;
        this.qualifiedTable = b.schema == null ? b.table : b.schema + "." + b.table;
        this.configuredDialect = b.dialect;
        this.clock = b.clock;
        this.eventIds = b.eventIds;
    }

    /**
     * A builder over the application's pooled {@link DataSource}.
     *
     * @param dataSource where the relay and {@link #createTableIfNotExists()} get connections
     * @return the builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Jdbi.create(Objects.requireNonNull(dataSource, "dataSource")));
    }

    /**
     * A builder over the application's {@link Jdbi}.
     *
     * @param jdbi where the relay and {@link #createTableIfNotExists()} get handles
     * @return the builder
     */
    public static Builder builder(Jdbi jdbi) {
        return new Builder(Objects.requireNonNull(jdbi, "jdbi"));
    }

    /**
     * The table, qualified by its schema if one was configured.
     *
     * @return the table name
     */
    public String tableName() {
        return qualifiedTable;
    }

    /**
     * The dialect, detected from the connection on first use unless set on the builder.
     *
     * @return the dialect
     */
    public JdbcDialect dialect() {
        resolve();
        return dialect;
    }

    Jdbi jdbi() {
        return jdbi;
    }

    Clock clock() {
        return clock;
    }

    OutboxSql sql() {
        resolve();
        return sql;
    }

    private void resolve() {
        if (sql != null) {
            return;
        }
        synchronized (this) {
            if (sql == null) {
                JdbcDialect d = configuredDialect != null ? configuredDialect : detect();
                dialect = d;
                sql = new OutboxSql(d, qualifiedTable);
            }
        }
    }

    private JdbcDialect detect() {
        String product;
        try {
            product = jdbi.withHandle(h -> h.getConnection().getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new org.jdbi.v3.core.ConnectionException(e);
        }
        return JdbcDialect.fromProductName(product).orElseThrow(() -> new IllegalStateException(
                "the outbox supports PostgreSQL, MySQL/MariaDB and H2, not " + product));
    }

    /**
     * Creates the table and its indexes if they do not exist, with the shipped DDL of the
     * dialect. Opt-in: production schemas are usually migrated with the shipped scripts.
     *
     * @return this outbox
     */
    public Outbox createTableIfNotExists() {
        JdbcDialect d = dialect();
        jdbi.useHandle(h -> {
            for (String statement : OutboxSql.ddl(d, schema, table)) {
                h.execute(statement);
            }
        });
        return this;
    }

    /**
     * Writes {@code message} on the handle of the caller's transaction; it commits or rolls
     * back with it. Call it inside {@code jdbi.useTransaction} (or your framework's
     * transaction); outside a transaction the row commits at once, alone.
     *
     * @param handle the caller's handle, in a transaction
     * @param message the message
     * @return the message's event id (generated if the message had none)
     * @throws org.jdbi.v3.core.JdbiException if the insert fails (for example a duplicate
     *     event id); the caller's transaction should roll back
     */
    public String enqueue(Handle handle, OutboxMessage message) {
        Objects.requireNonNull(handle, "handle");
        try {
            return enqueue(handle.getConnection(), message);
        } catch (SQLException e) {
            throw new org.jdbi.v3.core.ConnectionException(e);
        }
    }

    /**
     * Writes {@code message} on a plain JDBC connection, in whatever transaction it has open
     * (with auto-commit off, it commits with the caller's {@code commit()}).
     *
     * @param connection the caller's connection
     * @param message the message
     * @return the message's event id (generated if the message had none)
     * @throws SQLException if the insert fails (for example a duplicate event id)
     */
    public String enqueue(Connection connection, OutboxMessage message) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(message, "message");
        String eventId = message.eventId();
        if (eventId == null) {
            eventId = eventIds.get();
            // Validates the generated id by the same rules as a given one.
            new OutboxMessage(eventId, message.topic(), message.key(), message.payload());
        }
        long now = clock.millis();
        try (PreparedStatement ps = connection.prepareStatement(sql().insert)) {
            ps.setString(1, eventId);
            ps.setString(2, message.topic());
            if (message.key() == null) {
                ps.setNull(3, Types.VARCHAR);
            } else {
                ps.setString(3, message.key());
            }
            ps.setBytes(4, message.payload());
            ps.setLong(5, now);
            ps.setLong(6, now);
            ps.executeUpdate();
        }
        return eventId;
    }

    /**
     * Counts the pending and dead rows and finds the oldest pending one, in one query over the
     * {@code (state, ...)} indexes: for a backlog gauge (idem-micrometer's {@code RelayMetrics}
     * calls it at most once per refresh interval).
     *
     * @return the backlog
     * @throws org.jdbi.v3.core.JdbiException if the database fails
     */
    public OutboxBacklog backlog() {
        OutboxSql s = sql();
        return jdbi.withHandle(h -> {
            long pending = 0;
            long dead = 0;
            Long oldest = null;
            for (Map<String, Object> row : h.createQuery(s.backlog).mapToMap().list()) {
                String state = String.valueOf(row.get("state")).trim();
                long n = ((Number) row.get("n")).longValue();
                if ("P".equals(state)) {
                    pending = n;
                    oldest = row.get("oldest") == null ? null : ((Number) row.get("oldest")).longValue();
                } else {
                    dead += n;
                }
            }
            return new OutboxBacklog(pending, Optional.ofNullable(pending > 0 ? oldest : null)
                    .map(Instant::ofEpochMilli), dead);
        });
    }

    /**
     * A builder for a relay that publishes this outbox through {@code publisher}.
     *
     * @param publisher delivers one message to the broker
     * @return the relay builder
     */
    public Relay.Builder relay(Publisher publisher) {
        return new Relay.Builder(this, publisher);
    }

    /** Validating builder: every setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final Jdbi jdbi;
        private final Set<String> set = new HashSet<>();
        private String schema;
        private String table = OutboxSql.DEFAULT_TABLE;
        private JdbcDialect dialect;
        private Clock clock = Clock.systemUTC();
        private Supplier<String> eventIds = () -> UUID.randomUUID().toString();

        private Builder(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The table name (default {@code idem_outbox}).
         *
         * @param table 1..48 letters, digits or underscores, not starting with a digit
         * @return this builder
         */
        public Builder tableName(String table) {
            once("tableName");
            this.table = OutboxSql.checkIdentifier("table", table);
            return this;
        }

        /**
         * The schema (MySQL database) holding the table; default: the connection's current one.
         *
         * @param schema 1..48 letters, digits or underscores, not starting with a digit
         * @return this builder
         */
        public Builder schema(String schema) {
            once("schema");
            this.schema = OutboxSql.checkIdentifier("schema", schema);
            return this;
        }

        /**
         * The dialect, instead of detecting it from the connection on first use.
         *
         * @param dialect the database
         * @return this builder
         */
        public Builder dialect(JdbcDialect dialect) {
            once("dialect");
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * The clock stamping enqueued rows (default system UTC).
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            once("clock");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Generates event ids for messages that have none (default: random UUIDs). The ids must
         * be unique and 1..255 visible ASCII characters.
         *
         * @param eventIds the generator
         * @return this builder
         */
        public Builder eventIds(Supplier<String> eventIds) {
            once("eventIds");
            this.eventIds = Objects.requireNonNull(eventIds, "eventIds");
            return this;
        }

        /**
         * Builds the outbox; no connection is made until first use unless needed for detection.
         *
         * @return the outbox
         */
        public Outbox build() {
            return new Outbox(this);
        }
    }
}
