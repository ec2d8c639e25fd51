package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.internal.Failures;
import dev.idem.store.jdbc.internal.Row;
import dev.idem.store.jdbc.internal.Schema;
import dev.idem.store.jdbc.internal.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.transaction.TransactionException;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * An {@link IdempotencyStore} in a relational table, through Jdbi, for PostgreSQL 12+,
 * MySQL 8 / MariaDB 10.6+ and H2 2.x.
 *
 * <p>Every lease and expiry decision reads the database server's clock inside the same
 * statement that acts on it, so application nodes with skewed clocks cannot steal live
 * leases ({@link StoreCapabilities#serverClock()} is true). Each operation is atomic and one
 * round trip: on PostgreSQL every operation is one statement; on MySQL/MariaDB, which have
 * no {@code RETURNING} on an upsert, the claim and the lease extension are one {@code CALL}
 * of a stored procedure ({@code <table>_claim}, {@code <table>_extend}, created with the
 * table) that decides and writes under the row lock in its own transaction. On H2, which
 * runs in process, a claim is a short local transaction holding the row lock from its read
 * to its write. {@link #complete} and {@link #release} are fenced by
 * {@code WHERE ... AND token = ?}; zero rows updated means the lease was lost.
 *
 * <p>Transactional mode: {@link #inTransaction} runs business writes and the fenced
 * completion in one database transaction, so they commit together or not at all.
 *
 * <p>The store never closes the {@link DataSource} or {@link Jdbi} it was given. Database
 * failures are thrown as {@link StoreUnavailableException}; set connect and socket timeouts
 * on the {@code DataSource} so that an unreachable database fails fast. Thread-safe.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
    /** Largest fingerprint accepted, in bytes (the column width). */
    public static final int MAX_FINGERPRINT_BYTES = 1024;
    private static final int CLAIM_TRIES = 8;
    private static final Duration MAX_DURATION = Duration.ofDays(3650);

    private final Jdbi jdbi;
    private final String schema;
    private final String table;
    private final String qualifiedTable;
    private final JdbcDialect configuredDialect;
    private final int maxOutcomeBytes;
    private final int queryTimeoutSeconds;
    private volatile Resolved resolved;

    private JdbcIdempotencyStore(Builder b) {
        this.jdbi = b.jdbi;
        this.schema = b.schema;
        this.table = b.table;
        this.qualifiedTable = b.schema == null ? b.table : b.schema + "." + b.table;
        this.configuredDialect = b.dialect;
        this.maxOutcomeBytes = b.maxOutcomeBytes;
        this.queryTimeoutSeconds = b.queryTimeoutSeconds;
        if (b.dialect != null) {
            this.resolved = new Resolved(b.dialect, new Sql(b.dialect, qualifiedTable));
        }
    }

    /** A builder over a user's {@link DataSource} (pooled, with connect and socket timeouts set). */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Jdbi.create(Objects.requireNonNull(dataSource, "dataSource")));
    }

    /** A builder over a user's {@link Jdbi}. */
    public static Builder builder(Jdbi jdbi) {
        return new Builder(Objects.requireNonNull(jdbi, "jdbi"));
    }

    /** The dialect in use, detected from the connection on first use unless set on the builder. */
    public JdbcDialect dialect() {
        return resolved().dialect;
    }

    /** The table name, qualified by its schema if one was configured. */
    public String tableName() {
        return qualifiedTable;
    }

    /**
     * Creates the table and its expiry index if they do not exist, with the shipped DDL of
     * the dialect (see the README); on MySQL/MariaDB also the {@code <table>_claim} and
     * {@code <table>_extend} procedures if they do not exist (this needs the CREATE ROUTINE
     * privilege). Opt-in: production schemas are usually migrated with the scripts under
     * {@code dev/idem/store/jdbc/schema/}.
     *
     * @throws StoreUnavailableException if the database refuses
     */
    public JdbcIdempotencyStore createTableIfNotExists() {
        List<String> ddl = Schema.statements(dialect(), schema, table);
        try {
            jdbi.useHandle(h -> {
                for (String statement : ddl) {
                    String procedure = Schema.procedureName(statement);
                    if (procedure == null) {
                        h.execute(statement);
                    } else {
                        createProcedureIfMissing(h, procedure, statement);
                    }
                }
            });
        } catch (JdbiException | SQLException e) {
            throw Failures.unavailable("createTableIfNotExists", e);
        }
        return this;
    }

    // MySQL 8.0 before 8.0.29 has no CREATE PROCEDURE IF NOT EXISTS, and dropping and
    // recreating would break the claims of running nodes in between: create only when missing,
    // and accept losing a race with another node creating it (error 1304, already exists).
    private static void createProcedureIfMissing(Handle h, String qualifiedName, String statement)
            throws SQLException {
        int dot = qualifiedName.indexOf('.');
        String routineSchema = dot < 0 ? null : qualifiedName.substring(0, dot);
        String routine = qualifiedName.substring(dot + 1);
        boolean exists = h.createQuery("SELECT COUNT(*) FROM information_schema.ROUTINES"
                + " WHERE ROUTINE_SCHEMA = COALESCE(:routineSchema, DATABASE()) AND ROUTINE_NAME = :routine"
                + " AND ROUTINE_TYPE = 'PROCEDURE'")
                .bind("routineSchema", routineSchema).bind("routine", routine).mapTo(Integer.class).one() > 0;
        if (exists) {
            return;
        }
        // Plain JDBC: the body is not a Jdbi template (it holds colons in literals).
        try (Statement s = h.getConnection().createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            if (e.getErrorCode() != 1304) {
                throw e;
            }
        }
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        checkKey(key);
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (fingerprint.length > MAX_FINGERPRINT_BYTES) {
            throw new IllegalArgumentException("fingerprint is " + fingerprint.length + " bytes; at most "
                    + MAX_FINGERPRINT_BYTES + " allowed");
        }
        long leaseMs = millis("lease", lease);
        long lifeMs = Math.max(millis("ttl", ttl), leaseMs);
        Resolved r = resolved();
        for (int attempt = 1; ; attempt++) {
            try {
                ClaimResult result;
                switch (r.dialect) {
                    case POSTGRESQL:
                        result = jdbi.withHandle(h -> claimInOneStatement(h, r.sql, key, fingerprint, fencingToken,
                                leaseMs, lifeMs));
                        break;
                    case MYSQL:
                        result = jdbi.withHandle(h -> endingOpenTransactionOnFailure(h, () -> claimByProcedure(h,
                                r.sql, key, fingerprint, fencingToken, leaseMs, lifeMs)));
                        break;
                    default:
                        // H2 runs in process: the short transaction costs no network round trip.
                        result = jdbi.withHandle(h -> h.inTransaction(TransactionIsolationLevel.READ_COMMITTED,
                                tx -> claimUnderRowLock(tx, r.sql, key, fingerprint, fencingToken, leaseMs, lifeMs)));
                        break;
                }
                if (result != null) {
                    return result;
                }
            } catch (JdbiException e) {
                // A concurrent insert of the same key, or a deadlock victim: nothing was written,
                // and the next try sees the winner's row.
                boolean race = Failures.isDuplicateKey(e) || Failures.isTransientConflict(e);
                if (!race || attempt >= CLAIM_TRIES) {
                    throw Failures.unavailable("claim", e);
                }
            } catch (SQLException e) {
                throw Failures.unavailable("claim", e);
            }
            if (attempt >= CLAIM_TRIES) {
                throw new StoreUnavailableException("idempotency store claim of " + key
                        + " kept racing with concurrent writers; try again", null, true);
            }
        }
    }

    // One INSERT ... ON CONFLICT DO UPDATE ... WHERE <claimable> RETURNING; the previous row
    // comes from the statement's snapshot. Returns null when the snapshot and the row the
    // upsert saw disagree (a concurrent writer committed in between), so the caller retries.
    private ClaimResult claimInOneStatement(Handle h, Sql sql, IdempotencyKey key, byte[] fp, long token,
            long leaseMs, long lifeMs) {
        return bindKey(timed(h.createQuery(sql.claim)), key)
                .bind("fp", fp).bind("token", token).bind("leaseMs", leaseMs).bind("lifeMs", lifeMs)
                .map((rs, ctx) -> {
                    long now = rs.getLong("now_ms");
                    Row prev = Row.readOptional(rs, now);
                    long newAttempt = rs.getLong("new_attempt");
                    if (!rs.wasNull()) {
                        StoredRecord mine = new StoredRecord(key, RecordState.IN_PROGRESS, fp, token,
                                (int) newAttempt, Instant.ofEpochMilli(rs.getLong("new_lease_until")),
                                Instant.ofEpochMilli(rs.getLong("new_expires_at")), null);
                        boolean takeover = prev != null && !prev.expired() && prev.state == 'I';
                        return Optional.of(takeover ? ClaimResult.takenOver(mine, Instant.ofEpochMilli(now))
                                : ClaimResult.acquired(mine, Instant.ofEpochMilli(now)));
                    }
                    if (prev == null || claimable(prev, fp)) {
                        return Optional.<ClaimResult>empty();
                    }
                    return Optional.of(ClaimResult.existing(prev.toRecord(key), Instant.ofEpochMilli(now)));
                })
                .one()
                .orElse(null);
    }

    // MySQL/MariaDB: one CALL of the <table>_claim procedure (V2 script), which inserts or
    // locks the row, decides and writes in its own transaction, and answers with one row:
    // the database clock, the status (A acquired, T taken over, E existing) and the record.
    private ClaimResult claimByProcedure(Handle h, Sql sql, IdempotencyKey key, byte[] fp, long token,
            long leaseMs, long lifeMs) {
        return bindKey(timed(h.createQuery(sql.claim)), key)
                .bind("fp", fp).bind("token", token).bind("leaseMs", leaseMs).bind("lifeMs", lifeMs)
                .map((rs, ctx) -> {
                    Row row = Row.read(rs);
                    String status = rs.getString("status");
                    StoredRecord record = row.toRecord(key);
                    Instant now = Instant.ofEpochMilli(row.now);
                    if ("A".equals(status)) {
                        return ClaimResult.acquired(record, now);
                    }
                    if ("T".equals(status)) {
                        return ClaimResult.takenOver(record, now);
                    }
                    if ("E".equals(status)) {
                        return ClaimResult.existing(record, now);
                    }
                    throw new SQLException("unexpected claim status '" + status + "' from " + sql.claim);
                })
                .one();
    }

    // A procedure interrupted by the server (query timeout, KILL QUERY) before its exit
    // handler ran can leave its transaction open, holding the row lock, on a connection that
    // goes back to the pool: end it before handing the connection back. A connection the
    // driver already closed (network failure) needs nothing: the server ends its session.
    private static <T> T endingOpenTransactionOnFailure(Handle h, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            try {
                if (!h.getConnection().isClosed()) {
                    try (Statement s = h.getConnection().createStatement()) {
                        s.execute("ROLLBACK");
                    }
                }
            } catch (SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    // H2: SELECT ... FOR UPDATE locks the row; the UPDATE still states the claim condition,
    // so the database decides. An absent row is INSERTed; a concurrent insert fails with a
    // duplicate key and the caller retries. Several statements, but H2 runs in this JVM:
    // no network round trips.
    private ClaimResult claimUnderRowLock(Handle tx, Sql sql, IdempotencyKey key, byte[] fp, long token,
            long leaseMs, long lifeMs) throws SQLException {
        Optional<Row> locked = bindKey(timed(tx.createQuery(sql.lockRow)), key).map((rs, ctx) -> Row.read(rs))
                .findOne();
        if (locked.isEmpty()) {
            long now = timed(tx.createQuery(sql.selectNow)).mapTo(Long.class).one();
            bindKey(timed(tx.createUpdate(sql.insertRow)), key).bind("fp", fp).bind("token", token)
                    .bind("leaseUntil", now + leaseMs).bind("expiresAt", now + lifeMs).execute();
            return ClaimResult.acquired(inProgress(key, fp, token, 1, now, leaseMs, lifeMs), Instant.ofEpochMilli(now));
        }
        Row prev = locked.get();
        long now = prev.now;
        if (!claimable(prev, fp)) {
            return ClaimResult.existing(prev.toRecord(key), Instant.ofEpochMilli(now));
        }
        int attempt = prev.expired() ? 1 : prev.attempt + 1;
        int n = bindKey(timed(tx.createUpdate(sql.takeRow)), key).bind("fp", fp).bind("token", token)
                .bind("attempt", attempt).bind("leaseUntil", now + leaseMs).bind("expiresAt", now + lifeMs)
                .bind("now", now).execute();
        if (n != 1) {
            return null;
        }
        StoredRecord mine = inProgress(key, fp, token, attempt, now, leaseMs, lifeMs);
        boolean takeover = !prev.expired() && prev.state == 'I';
        return takeover ? ClaimResult.takenOver(mine, Instant.ofEpochMilli(now))
                : ClaimResult.acquired(mine, Instant.ofEpochMilli(now));
    }

    private static boolean claimable(Row r, byte[] fp) {
        return r.expired() || r.state == 'R'
                || (r.state == 'I' && r.leaseUntil != null && r.leaseUntil <= r.now && Arrays.equals(r.fingerprint, fp));
    }

    private static StoredRecord inProgress(IdempotencyKey key, byte[] fp, long token, int attempt, long now,
            long leaseMs, long lifeMs) {
        return new StoredRecord(key, RecordState.IN_PROGRESS, fp, token, attempt, Instant.ofEpochMilli(now + leaseMs),
                Instant.ofEpochMilli(now + lifeMs), null);
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        checkKey(key);
        checkOutcome(outcome);
        long ttlMs = millis("ttl", ttl);
        try {
            return jdbi.withHandle(h -> completeFenced(h, key, fencingToken, outcome, ttlMs));
        } catch (JdbiException e) {
            throw Failures.unavailable("complete", e);
        }
    }

    /**
     * The fenced completion on a handle the caller controls, for applications that manage
     * the transaction themselves (it commits or rolls back with the caller's transaction).
     * Returns false if the token is not current; the caller must then roll back.
     *
     * @throws StoreUnavailableException if the statement fails
     */
    public boolean completeWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] outcome,
            Duration ttl) {
        Objects.requireNonNull(handle, "handle");
        checkKey(key);
        checkOutcome(outcome);
        long ttlMs = millis("ttl", ttl);
        try {
            return completeFenced(handle, key, fencingToken, outcome, ttlMs);
        } catch (JdbiException e) {
            throw Failures.unavailable("complete", e);
        }
    }

    private boolean completeFenced(Handle h, IdempotencyKey key, long token, byte[] outcome, long ttlMs) {
        Resolved r = resolved();
        int n = bindKey(timed(h.createUpdate(r.sql.complete)), key).bind("token", token).bind("outcome", outcome)
                .bind("ttlMs", ttlMs).execute();
        if (n > 0) {
            return true;
        }
        if (r.dialect != JdbcDialect.MYSQL) {
            return false;
        }
        // A repeat of an accepted completion changes nothing, and with useAffectedRows=true
        // MySQL then reports 0 rows: confirm from the row instead of calling the lease lost.
        return bindKey(timed(h.createQuery(r.sql.completedBy)), key)
                .map((rs, ctx) -> "C".equals(rs.getString("state")) && rs.getLong("token") == token)
                .findOne().orElse(false);
    }

    /**
     * Transactional mode: runs {@code work} on the handle of a new transaction, encodes its
     * result with {@code encoder}, and completes the record fenced by {@code fencingToken}
     * in the same transaction. The business writes and the completion commit together; if
     * the completion matches nothing (another worker took the lease over) the transaction
     * rolls back and {@link LeaseLostException} is thrown, so the business writes of a stale
     * worker never persist. With the engine:
     *
     * <pre>{@code
     * engine.executeAtomically(key, request, Charge.class, options, (ctx, completion) ->
     *     store.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(), completion::encode,
     *         handle -> charges.insert(handle, request)));
     * }</pre>
     *
     * @param <T> the work's result
     * @param <X> the checked exception the work may throw (it rolls the transaction back)
     * @throws LeaseLostException if the token is no longer current (rolled back)
     * @throws StoreUnavailableException if no connection could be had (the work did not
     *     run), or the completion or the commit failed (rolled back, or for a failed commit:
     *     committed together or not at all)
     */
    public <T, X extends Exception> T inTransaction(IdempotencyKey key, long fencingToken, Duration ttl,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work) throws X {
        checkKey(key);
        long ttlMs = millis("ttl", ttl);
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(work, "work");
        resolved();
        Handle handle;
        try {
            handle = jdbi.open();
        } catch (JdbiException e) {
            throw Failures.unavailable("transaction start", e);
        }
        try (handle) {
            return handle.inTransaction(tx -> {
                T value = work.withHandle(tx);
                byte[] outcome = Objects.requireNonNull(encoder.apply(value), "encoder returned null");
                checkOutcome(outcome);
                boolean completed;
                try {
                    completed = completeFenced(tx, key, fencingToken, outcome, ttlMs);
                } catch (JdbiException e) {
                    throw Failures.unavailable("complete", e);
                }
                if (!completed) {
                    throw new LeaseLostException(key, fencingToken);
                }
                return value;
            });
        } catch (TransactionException e) {
            throw Failures.unavailable("transaction commit", e);
        }
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        checkKey(key);
        Sql sql = resolved().sql;
        try {
            return jdbi.withHandle(h -> bindKey(timed(h.createUpdate(sql.release)), key).bind("token", fencingToken)
                    .execute()) > 0;
        } catch (JdbiException e) {
            throw Failures.unavailable("release", e);
        }
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        checkKey(key);
        long leaseMs = millis("lease", lease);
        Resolved r = resolved();
        try {
            if (r.dialect == JdbcDialect.POSTGRESQL) {
                return jdbi.withHandle(h -> bindKey(timed(h.createQuery(r.sql.extend)), key)
                        .bind("token", fencingToken).bind("leaseMs", leaseMs).mapTo(Long.class).findOne())
                        .map(Instant::ofEpochMilli);
            }
            if (r.dialect == JdbcDialect.MYSQL) {
                return jdbi.withHandle(h -> endingOpenTransactionOnFailure(h,
                        () -> bindKey(timed(h.createQuery(r.sql.extend)), key).bind("token", fencingToken)
                                .bind("leaseMs", leaseMs).map((rs, ctx) -> {
                                    long deadline = rs.getLong("lease_until");
                                    return rs.wasNull() ? Optional.<Instant>empty()
                                            : Optional.of(Instant.ofEpochMilli(deadline));
                                }).one()));
            }
            // H2 (in process): the deadline is computed from the database clock read just
            // before; the UPDATE is fenced by the token, so the separate read cannot let
            // anyone else in.
            return jdbi.withHandle(h -> {
                long now = timed(h.createQuery(r.sql.selectNow)).mapTo(Long.class).one();
                long deadline = now + leaseMs;
                int n = bindKey(timed(h.createUpdate(r.sql.extendTo)), key).bind("token", fencingToken)
                        .bind("deadline", deadline).bind("now", now).execute();
                return n > 0 ? Optional.of(Instant.ofEpochMilli(deadline)) : Optional.<Instant>empty();
            });
        } catch (JdbiException e) {
            throw Failures.unavailable("extendLease", e);
        }
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        checkKey(key);
        Sql sql = resolved().sql;
        try {
            return jdbi.withHandle(h -> bindKey(timed(h.createQuery(sql.find)), key)
                    .map((rs, ctx) -> Row.read(rs).toRecord(key)).findOne());
        } catch (JdbiException e) {
            throw Failures.unavailable("find", e);
        }
    }

    /**
     * Deletes up to {@code limit} expired rows in one statement and returns how many it
     * deleted. Call it periodically with a modest batch (for example 1,000 every few
     * seconds, repeating while it returns {@code limit}); each batch is its own short
     * transaction. On PostgreSQL rows locked by a concurrent claim are skipped, not waited for.
     */
    @Override
    public int purgeExpired(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive but was " + limit);
        }
        Resolved r = resolved();
        try {
            if (r.dialect == JdbcDialect.MYSQL) {
                // READ COMMITTED: no gap locks on the expiry index, so claims are not blocked.
                return jdbi.withHandle(h -> h.inTransaction(TransactionIsolationLevel.READ_COMMITTED,
                        tx -> timed(tx.createUpdate(r.sql.purge)).bind("limit", limit).execute()));
            }
            return jdbi.withHandle(h -> timed(h.createUpdate(r.sql.purge)).bind("limit", limit).execute());
        } catch (JdbiException e) {
            throw Failures.unavailable("purgeExpired", e);
        }
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(false, true, maxOutcomeBytes);
    }

    /** Does nothing: the store holds no resources of its own and never closes the user's DataSource. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        Resolved r = resolved;
        return "JdbcIdempotencyStore[" + qualifiedTable + ", " + (r == null ? "dialect not yet detected" : r.dialect)
                + "]";
    }

    private Resolved resolved() {
        Resolved r = resolved;
        if (r != null) {
            return r;
        }
        String product;
        try {
            product = jdbi.withHandle(h -> h.getConnection().getMetaData().getDatabaseProductName());
        } catch (JdbiException | SQLException e) {
            throw Failures.unavailable("dialect detection", e);
        }
        JdbcDialect d = JdbcDialect.fromProductName(product).orElseThrow(() -> new IllegalStateException(
                "database '" + product + "' is not supported; set JdbcIdempotencyStore.Builder.dialect(...) "
                        + "if it speaks one of " + Arrays.toString(JdbcDialect.values())));
        r = new Resolved(d, new Sql(d, qualifiedTable));
        resolved = r;
        return r;
    }

    private <S extends SqlStatement<S>> S timed(S statement) {
        return queryTimeoutSeconds > 0 ? statement.setQueryTimeout(queryTimeoutSeconds) : statement;
    }

    // MySQL keeps scope, operation and key as VARBINARY (exact, collation-free comparison).
    private <S extends SqlStatement<S>> S bindKey(S statement, IdempotencyKey key) {
        if (resolved().dialect == JdbcDialect.MYSQL) {
            return statement.bind("scope", key.scope().getBytes(StandardCharsets.UTF_8))
                    .bind("operation", key.operation().getBytes(StandardCharsets.UTF_8))
                    .bind("key", key.key().getBytes(StandardCharsets.US_ASCII));
        }
        return statement.bind("scope", key.scope()).bind("operation", key.operation()).bind("key", key.key());
    }

    private void checkOutcome(byte[] outcome) {
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.length > maxOutcomeBytes) {
            throw new IllegalArgumentException(
                    "outcome is " + outcome.length + " bytes; this store holds at most " + maxOutcomeBytes);
        }
    }

    // Unpaired surrogates cannot be encoded: the drivers would store '?' and two different
    // keys could collide, so they are refused before anything is written.
    private static void checkKey(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        checkEncodable("scope", key.scope());
        checkEncodable("operation", key.operation());
    }

    private static void checkEncodable(String part, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidIdempotencyKeyException(part + " has an unpaired surrogate at index " + i
                        + "; it cannot be stored in a database");
            }
        }
    }

    private static long millis(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms but was " + d);
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_DURATION + " but was " + d);
        }
        return d.toMillis();
    }

    private static final class Resolved {
        final JdbcDialect dialect;
        final Sql sql;

        Resolved(JdbcDialect dialect, Sql sql) {
            this.dialect = dialect;
            this.sql = sql;
        }
    }

    /** Validating builder; every setter rejects a bad value at once with a message naming it. */
    public static final class Builder {
        private final Jdbi jdbi;
        private String schema;
        private String table = Schema.DEFAULT_TABLE;
        private JdbcDialect dialect;
        private int maxOutcomeBytes = 4 * 1024 * 1024;
        private int queryTimeoutSeconds = 10;

        private Builder(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        /** The table name (default {@code idem_record}): letters, digits, underscores; up to 48 characters. */
        public Builder tableName(String table) {
            this.table = Schema.checkIdentifier("table", table);
            return this;
        }

        /** The schema (or MySQL database) holding the table; default: the connection's current one. */
        public Builder schema(String schema) {
            this.schema = Schema.checkIdentifier("schema", schema);
            return this;
        }

        /** The dialect, instead of detecting it from the connection's metadata on first use. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * The largest outcome accepted, in bytes (default 4 MiB). On MySQL/MariaDB keep it
         * below the server's {@code max_allowed_packet}.
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            if (maxOutcomeBytes < 1024 * 1024) {
                throw new IllegalArgumentException("maxOutcomeBytes must be at least 1 MiB (1048576) but was "
                        + maxOutcomeBytes);
            }
            this.maxOutcomeBytes = maxOutcomeBytes;
            return this;
        }

        /**
         * The JDBC query timeout of every statement the store issues (default 10 s); zero
         * means none. Bounds a statement stuck behind a lock; it does not replace the
         * DataSource's connect and socket timeouts.
         */
        public Builder queryTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "queryTimeout");
            if (timeout.isNegative() || (!timeout.isZero() && timeout.getSeconds() < 1)
                    || timeout.getSeconds() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("queryTimeout must be zero or whole seconds >= 1 but was " + timeout);
            }
            this.queryTimeoutSeconds = (int) timeout.getSeconds();
            return this;
        }

        /** Builds the store; no connection is made until the first operation unless a dialect is set. */
        public JdbcIdempotencyStore build() {
            return new JdbcIdempotencyStore(this);
        }
    }
}
