package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.JdbcDialect;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * The store's operations on one dialect and one table. The claim and the lease extension
 * differ per dialect (subclasses); the fenced updates and the read are shared. Jdbi and
 * SQL exceptions propagate; the store turns them into {@code StoreUnavailableException}s.
 */
public abstract class DialectOperations {
    /** The user's Jdbi. */
    protected final Jdbi jdbi;
    /** The dialect's statements. */
    protected final Sql sql;
    private final JdbcDialect dialect;
    private final int queryTimeoutSeconds;
    private final NetworkTimeout networkTimeout;
    private final Clock clock;

    /**
     * Creates the operations.
     *
     * @param jdbi the user's Jdbi
     * @param dialect the dialect
     * @param table the validated, possibly schema-qualified table name
     * @param queryTimeoutSeconds the JDBC query timeout of every statement; 0 for none
     * @param clock the test clock replacing the database clock, or null for the database clock
     */
    protected DialectOperations(Jdbi jdbi, JdbcDialect dialect, String table, int queryTimeoutSeconds, Clock clock) {
        this.jdbi = jdbi;
        this.dialect = dialect;
        this.sql = new Sql(dialect, table);
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.networkTimeout = dialect == JdbcDialect.POSTGRESQL && queryTimeoutSeconds > 0
                ? new NetworkTimeout(queryTimeoutSeconds) : null;
        this.clock = clock;
    }

    /**
     * The operations of {@code dialect}.
     *
     * @param jdbi the user's Jdbi
     * @param dialect the dialect
     * @param table the validated, possibly schema-qualified table name
     * @param queryTimeoutSeconds the JDBC query timeout of every statement; 0 for none
     * @param clock the test clock replacing the database clock, or null for the database clock
     * @return the operations
     */
    public static DialectOperations of(Jdbi jdbi, JdbcDialect dialect, String table, int queryTimeoutSeconds,
            Clock clock) {
        switch (dialect) {
            case POSTGRESQL:
                return new PostgresOperations(jdbi, table, queryTimeoutSeconds, clock);
            case MYSQL:
                return new MySqlOperations(jdbi, table, queryTimeoutSeconds, clock);
            default:
                return new H2Operations(jdbi, table, queryTimeoutSeconds, clock);
        }
    }

    /**
     * The dialect.
     *
     * @return the dialect
     */
    public JdbcDialect dialect() {
        return dialect;
    }

    /**
     * The claim, atomic and (on a network database) one round trip.
     *
     * @param key the key
     * @param fp the fingerprint
     * @param token the caller's token
     * @param leaseMs the lease in ms
     * @param lifeMs the record's life, at least the lease, in ms
     * @return the result, or null if a concurrent writer got in between and the claim should be repeated
     * @throws SQLException if a reply cannot be read
     */
    public abstract ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long leaseMs, long lifeMs)
            throws SQLException;

    /**
     * The fenced lease extension.
     *
     * @param key the key
     * @param token the caller's token
     * @param leaseMs the new lease from now, in ms
     * @return the new deadline, or empty if the token is not current
     */
    public abstract Optional<Instant> extendLease(IdempotencyKey key, long token, long leaseMs);

    /**
     * Deletes up to {@code limit} expired rows.
     *
     * @param limit the batch size
     * @return how many rows were deleted
     */
    public int purge(int limit) {
        return jdbi.withHandle(h -> clocked(timed(h.createUpdate(sql.purge))).bind("limit", limit).execute());
    }

    /**
     * The fenced completion on {@code h}, which may be the caller's transaction.
     *
     * @param h the handle
     * @param key the key
     * @param token the caller's token
     * @param outcome the outcome
     * @param ttlMs the record's life from now, in ms
     * @return whether the token was current (or the record already completed by it)
     */
    public boolean complete(Handle h, IdempotencyKey key, long token, byte[] outcome, long ttlMs) {
        int n = prepared(h.createUpdate(sql.complete), key).bind("token", token).bind("outcome", outcome)
                .bind("ttlMs", ttlMs).execute();
        return n > 0 || (zeroMayMeanUnchanged() && current(h, key, token, 'C', null));
    }

    /**
     * The fenced replacement of the journal on {@code h}, which may be the caller's transaction.
     *
     * @param h the handle
     * @param key the key
     * @param token the caller's token
     * @param journal the new journal
     * @return whether the token was current on an IN_PROGRESS record
     */
    public boolean checkpoint(Handle h, IdempotencyKey key, long token, byte[] journal) {
        int n = prepared(h.createUpdate(sql.checkpoint), key).bind("token", token).bind("journal", journal)
                .execute();
        return n > 0 || (zeroMayMeanUnchanged() && current(h, key, token, 'I', journal));
    }

    /**
     * The fenced release.
     *
     * @param key the key
     * @param token the caller's token
     * @return whether the token was current (or the record already released by it)
     */
    public boolean release(IdempotencyKey key, long token) {
        return jdbi.withHandle(h -> {
            int n = prepared(h.createUpdate(sql.release), key).bind("token", token).execute();
            return n > 0 || (zeroMayMeanUnchanged() && current(h, key, token, 'R', null));
        });
    }

    /**
     * The unexpired record.
     *
     * @param key the key
     * @return the record, if any
     */
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return jdbi.withHandle(h -> prepared(h.createQuery(sql.find), key)
                .map((rs, ctx) -> Row.read(rs).toRecord(key)).findOne());
    }

    /**
     * Whether an update that changed nothing reports zero rows: MySQL with
     * {@code useAffectedRows=true}. A repeat by the same token is then confirmed by a read.
     *
     * @return true on MySQL/MariaDB
     */
    protected boolean zeroMayMeanUnchanged() {
        return false;
    }

    private boolean current(Handle h, IdempotencyKey key, long token, char state, byte[] journal) {
        return prepared(h.createQuery(sql.currentRow), key)
                .map((rs, ctx) -> rs.getString("state").charAt(0) == state && rs.getLong("token") == token
                        && (journal == null || Arrays.equals(journal, rs.getBytes("journal"))))
                .findOne().orElse(false);
    }

    /**
     * Applies the query timeout, binds the key and the clock.
     *
     * @param <S> the statement type
     * @param statement the statement
     * @param key the key
     * @return the statement
     */
    protected <S extends SqlStatement<S>> S prepared(S statement, IdempotencyKey key) {
        return bindKey(clocked(timed(statement)), key);
    }

    /**
     * Applies the query timeout: on PostgreSQL as the connection's network timeout during
     * the statement (see {@link NetworkTimeout}), elsewhere as the JDBC query timeout
     * (MariaDB Connector/J sends it with the statement as {@code max_statement_time}).
     *
     * @param <S> the statement type
     * @param statement the statement
     * @return the statement
     */
    protected <S extends SqlStatement<S>> S timed(S statement) {
        if (networkTimeout != null) {
            return statement.addCustomizer(networkTimeout);
        }
        return queryTimeoutSeconds > 0 ? statement.setQueryTimeout(queryTimeoutSeconds) : statement;
    }

    /**
     * Binds the test clock's now, or null for the database clock.
     *
     * @param <S> the statement type
     * @param statement a statement that uses {@link Sql#now}
     * @return the statement
     */
    protected <S extends SqlStatement<S>> S clocked(S statement) {
        return statement.bind(Sql.CLOCK, clock == null ? null : (Long) clock.millis());
    }

    /**
     * Binds scope, operation and key; MySQL keeps them as VARBINARY (exact, collation-free comparison).
     *
     * @param <S> the statement type
     * @param statement the statement
     * @param key the key
     * @return the statement
     */
    protected <S extends SqlStatement<S>> S bindKey(S statement, IdempotencyKey key) {
        if (dialect == JdbcDialect.MYSQL) {
            return statement.bind("scope", key.scope().getBytes(StandardCharsets.UTF_8))
                    .bind("operation", key.operation().getBytes(StandardCharsets.UTF_8))
                    .bind("key", key.key().getBytes(StandardCharsets.US_ASCII));
        }
        return statement.bind("scope", key.scope()).bind("operation", key.operation()).bind("key", key.key());
    }

    /**
     * Whether a claim may take {@code r}: expired, released, or a lapsed lease of the same request.
     *
     * @param r the row as read
     * @param fp the claim's fingerprint
     * @return whether the claim wins
     */
    protected static boolean claimable(Row r, byte[] fp) {
        return r.expired() || r.state == 'R'
                || (r.state == 'I' && r.leaseUntil != null && r.leaseUntil <= r.now && Arrays.equals(r.fingerprint, fp));
    }

    /**
     * The caller's new IN_PROGRESS record.
     *
     * @param key the key
     * @param fp the fingerprint
     * @param token the token
     * @param attempt the attempt
     * @param createdAt the creation time, epoch ms
     * @param now the clock, epoch ms
     * @param leaseMs the lease, ms
     * @param lifeMs the life, ms
     * @param journal the journal carried over, or null
     * @return the record
     */
    protected static StoredRecord inProgress(IdempotencyKey key, byte[] fp, long token, int attempt, long createdAt,
            long now, long leaseMs, long lifeMs, byte[] journal) {
        return new StoredRecord(key, RecordState.IN_PROGRESS, fp, token, attempt, Instant.ofEpochMilli(createdAt),
                Instant.ofEpochMilli(now + leaseMs), Instant.ofEpochMilli(now + lifeMs), null, journal);
    }
}
