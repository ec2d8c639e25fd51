package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoreLimits;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.AtomicWork;
import dev.idem.engine.ExecutionContext;
import dev.idem.store.jdbc.internal.Arguments;
import dev.idem.store.jdbc.internal.Claims;
import dev.idem.store.jdbc.internal.DialectOperations;
import dev.idem.store.jdbc.internal.Failures;
import dev.idem.store.jdbc.internal.LazyOperations;
import dev.idem.store.jdbc.internal.Schema;
import dev.idem.store.jdbc.internal.SchemaInstaller;
import dev.idem.store.jdbc.internal.TransactionalCompletion;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/**
 * An {@link IdempotencyStore} in a relational table, through Jdbi, for PostgreSQL 12+,
 * MySQL 8 / MariaDB 10.6+ and H2 2.x.
 *
 * <p>Every lease and expiry decision reads the database server's clock inside the same
 * statement that acts on it, so application nodes with skewed clocks cannot steal live
 * leases ({@link StoreCapabilities#serverClock()} is true, unless a test clock is set with
 * {@link Builder#clock}). Each operation is atomic and one round trip: on PostgreSQL every
 * operation is one statement; on MySQL/MariaDB, which have no {@code RETURNING} on an
 * upsert, the claim and the lease extension are one {@code CALL} of a stored procedure
 * ({@code <table>_claim_v2}, {@code <table>_extend_v2}, created with the table) that
 * decides and writes under the row lock in its own transaction. On H2, which runs in
 * process, a claim is a short local transaction holding the row lock from its read to its
 * write. {@link #complete}, {@link #release} and {@link #checkpoint} are fenced by
 * {@code WHERE ... AND token = ?}; zero rows updated means the lease was lost.
 *
 * <p>Transactional mode: {@link #inTransaction} runs business writes and the fenced
 * completion in one database transaction, so they commit together or not at all;
 * {@link #checkpointInTransaction} does the same for one step of multi-step work and its
 * journal entry.
 *
 * <p>The store never closes the {@link DataSource} or {@link Jdbi} it was given. Database
 * failures are thrown as {@link StoreUnavailableException}; set connect and socket timeouts
 * on the {@code DataSource} so that an unreachable database fails fast. Thread-safe.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
    /** Largest fingerprint accepted, in bytes (the column width). */
    public static final int MAX_FINGERPRINT_BYTES = 1024;
    /** The longest lease or TTL a call accepts (about ten years). */
    public static final Duration MAX_DURATION = Duration.ofDays(3650);

    private final Jdbi jdbi;
    // The DataSource or Jdbi the store was built over: two stores over one of them and one table
    // hold the same records.
    private final Object connections;
    private final String schema;
    private final String table;
    private final String qualifiedTable;
    private final int maxOutcomeBytes;
    private final Clock clock;
    private final LazyOperations ops;
    private final TransactionalCompletion transactional;

    private JdbcIdempotencyStore(Builder b) {
        this.jdbi = b.jdbi;
        this.connections = b.connections;
        this.schema = b.schema;
        this.table = b.table;
        this.qualifiedTable = b.schema == null ? b.table : b.schema + "." + b.table;
        this.maxOutcomeBytes = b.maxOutcomeBytes;
        this.clock = b.clock;
        this.ops = new LazyOperations(jdbi, b.dialect, qualifiedTable, b.queryTimeoutSeconds, clock);
        this.transactional = new TransactionalCompletion(jdbi, ops, maxOutcomeBytes);
    }

    /**
     * A builder over a user's {@link DataSource} (pooled, with connect and socket timeouts set).
     *
     * @param dataSource the connections to use; never closed by the store
     * @return the builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Jdbi.create(Objects.requireNonNull(dataSource, "dataSource")), dataSource);
    }

    /**
     * A builder over a user's {@link Jdbi}.
     *
     * @param jdbi the Jdbi to use
     * @return the builder
     */
    public static Builder builder(Jdbi jdbi) {
        return new Builder(Objects.requireNonNull(jdbi, "jdbi"), jdbi);
    }

    /**
     * The {@link Jdbi} this store runs its statements and its transactional mode on: the one
     * given to {@link #builder(Jdbi)}, or one over the {@code DataSource} given to
     * {@link #builder(DataSource)}. For application work on the same database beside the
     * transactional mode (a read next to an idempotent write).
     *
     * @return the Jdbi
     */
    public Jdbi jdbi() {
        return jdbi;
    }

    /**
     * The {@code DataSource} given to {@link #builder(DataSource)}, for an integration that must
     * know where the store's connections come from (a transaction manager that enlists them, as
     * the Quarkus extension's JTA mode needs); empty for a store built over a {@link Jdbi}.
     *
     * @return the DataSource, or empty
     */
    public Optional<DataSource> dataSource() {
        return connections instanceof DataSource d ? Optional.of(d) : Optional.empty();
    }

    /**
     * The dialect in use, detected from the connection on first use unless set on the builder.
     *
     * @return the dialect
     */
    public JdbcDialect dialect() {
        return ops.get().dialect();
    }

    /**
     * The table name, qualified by its schema if one was configured.
     *
     * @return the table name
     */
    public String tableName() {
        return qualifiedTable;
    }

    /**
     * Creates the table and its expiry index if they do not exist, and upgrades a table of an
     * earlier version (adds the {@code created_at} and {@code journal} columns), with the
     * shipped DDL of the dialect (see the README); on MySQL/MariaDB also the procedures if they
     * do not exist (this needs the CREATE ROUTINE privilege). Safe to run on every node while
     * others serve traffic. Opt-in: production schemas are usually migrated with the scripts
     * under {@code dev/idem/store/jdbc/schema/}.
     *
     * @return this store
     * @throws StoreUnavailableException if the database refuses
     */
    public JdbcIdempotencyStore createTableIfNotExists() {
        try {
            SchemaInstaller.install(jdbi, dialect(), schema, table);
        } catch (JdbiException | SQLException e) {
            throw Failures.unavailable("createTableIfNotExists", e);
        }
        return this;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        Arguments.checkKey(key);
        StoreLimits.checkFingerprint(fingerprint, MAX_FINGERPRINT_BYTES);
        long leaseMs = Arguments.millis("lease", lease);
        long lifeMs = Math.max(Arguments.millis("ttl", ttl), leaseMs);
        return Claims.claim(ops.get(), key, fingerprint, fencingToken, leaseMs, lifeMs);
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        Arguments.checkKey(key);
        StoreLimits.checkSize("outcome", outcome, maxOutcomeBytes);
        long ttlMs = Arguments.millis("ttl", ttl);
        DialectOperations o = ops.get();
        return Failures.orUnavailable("complete",
                () -> jdbi.withHandle(h -> o.complete(h, key, fencingToken, outcome, ttlMs)));
    }

    /**
     * The fenced completion on a handle the caller controls, for applications that manage
     * the transaction themselves (it commits or rolls back with the caller's transaction).
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param outcome the outcome
     * @param ttl how long the completed record lives
     * @return false if the token is not current; the caller must then roll back
     * @throws IllegalArgumentException if the outcome exceeds the store's maximum
     * @throws StoreUnavailableException if the statement fails
     */
    public boolean completeWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] outcome,
            Duration ttl) {
        return transactional.completeWithin(handle, key, fencingToken, outcome, ttl);
    }

    /**
     * Transactional mode: runs {@code work} on the handle of a new transaction, encodes its
     * result with {@code encoder}, and completes the record fenced by {@code fencingToken}
     * in the same transaction. The business writes and the completion commit together; if
     * the completion matches nothing (another worker took the lease over) the transaction
     * rolls back and {@link LeaseLostException} is thrown, so the business writes of a stale
     * worker never persist. With the engine, {@link #transactional(HandleCallback)} passes
     * the key, token, TTL and encoder for you; this method is for callers that hold them
     * otherwise (an inbox's completion, a framework's transaction).
     *
     * @param <T> the work's result
     * @param <X> the checked exception the work may throw (it rolls the transaction back)
     * @param key the key
     * @param fencingToken the caller's token
     * @param ttl how long the completed record lives
     * @param encoder turns the work's result into the stored outcome
     * @param work the business writes, on the transaction's handle
     * @return the work's result, committed with the completion
     * @throws X what the work threw (rolled back)
     * @throws LeaseLostException if the token is no longer current (rolled back)
     * @throws StoreUnavailableException if no connection could be had (the work did not
     *     run), or the completion or the commit failed (rolled back, or for a failed commit:
     *     committed together or not at all)
     */
    public <T, X extends Exception> T inTransaction(IdempotencyKey key, long fencingToken, Duration ttl,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work) throws X {
        return transactional.inTransaction(key, fencingToken, ttl, encoder, work);
    }

    /**
     * Transactional mode with the engine, business code only: the work the engine runs for
     * {@code executeAtomically} or {@code callAtomically}. It runs {@code work} on the handle of
     * a new transaction and completes the record in the same transaction (this execution's
     * key, fencing token, TTL and encoding, all taken from the engine), as
     * {@link #inTransaction} does:
     *
     * <pre>{@code
     * Result<Charge> result = engine.executeAtomically(key, request, Charge.class,
     *         store.transactional(handle -> charges.insert(handle, request)));
     * }</pre>
     *
     * The business writes and the completion commit together; a worker whose lease was taken
     * over meanwhile is rolled back and gets {@link LeaseLostException}; if {@code work} throws,
     * its transaction rolls back and the engine treats the exception as any work's failure.
     *
     * @param <T> the work's result
     * @param <X> the checked exception the work may throw (it rolls the transaction back)
     * @param work the business writes, on the transaction's handle
     * @return the work for {@code IdempotencyEngine.executeAtomically}
     */
    public <T, X extends Exception> AtomicWork<T> transactional(HandleCallback<T, X> work) {
        Objects.requireNonNull(work, "work");
        return bound((ctx, completion) -> transactional.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(),
                completion::encode, work));
    }

    /**
     * Like {@link #transactional(HandleCallback)} for business code that also needs the
     * execution (its {@link ExecutionContext#downstreamKey()} or attempt):
     * {@code store.transactional((handle, ctx) -> charges.insert(handle, request, ctx.downstreamKey()))}.
     *
     * @param <T> the work's result
     * @param work the business writes, on the transaction's handle, with the execution's context
     * @return the work for {@code IdempotencyEngine.executeAtomically}
     */
    public <T> AtomicWork<T> transactional(TransactionalWork<T> work) {
        Objects.requireNonNull(work, "work");
        return bound((ctx, completion) -> transactional.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(),
                completion::encode, handle -> work.execute(handle, ctx)));
    }

    // Names this store as the work's, so an engine on another store refuses it before claiming.
    private <T> AtomicWork<T> bound(AtomicWork<T> work) {
        JdbcIdempotencyStore self = this;
        return new AtomicWork<>() {
            @Override
            public T executeAndComplete(ExecutionContext context, Completion completion) throws Exception {
                return work.executeAndComplete(context, completion);
            }

            @Override
            public IdempotencyStore store() {
                return self;
            }
        };
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        Arguments.checkKey(key);
        StoreLimits.checkSize("journal", journal, maxOutcomeBytes);
        DialectOperations o = ops.get();
        return Failures.orUnavailable("checkpoint",
                () -> jdbi.withHandle(h -> o.checkpoint(h, key, fencingToken, journal)));
    }

    /**
     * {@link #checkpoint} on a handle the caller controls, so that a step's business writes
     * and its journal entry commit (or roll back) together with the caller's transaction.
     * The row stays locked until that transaction ends, which holds back a takeover of the
     * key meanwhile: keep the transaction short.
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal the whole new journal
     * @return false if the token is not current; the caller must then roll back
     * @throws IllegalArgumentException if the journal exceeds the store's maximum
     * @throws StoreUnavailableException if the statement fails
     */
    public boolean checkpointWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] journal) {
        return transactional.checkpointWithin(handle, key, fencingToken, journal);
    }

    /**
     * Transactional mode for one step: runs {@code work} on the handle of a new transaction,
     * turns its result into the new journal with {@code journal}, and checkpoints it fenced
     * by {@code fencingToken} in the same transaction, so the step's business writes and its
     * journal entry commit together. If the fence refuses, everything rolls back and
     * {@link LeaseLostException} is thrown.
     *
     * @param <T> the step's result
     * @param <X> the checked exception the work may throw (it rolls the transaction back)
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal turns the step's result into the whole new journal
     * @param work the step's business writes, on the transaction's handle
     * @return the step's result, committed with its journal entry
     * @throws X what the work threw (rolled back)
     * @throws LeaseLostException if the token is no longer current (rolled back)
     * @throws StoreUnavailableException if no connection could be had, or the checkpoint or the commit failed
     */
    public <T, X extends Exception> T checkpointInTransaction(IdempotencyKey key, long fencingToken,
            Function<? super T, byte[]> journal, HandleCallback<T, X> work) throws X {
        return transactional.checkpointInTransaction(key, fencingToken, journal, work);
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        Arguments.checkKey(key);
        return Failures.orUnavailable("release", () -> ops.get().release(key, fencingToken));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        Arguments.checkKey(key);
        long leaseMs = Arguments.millis("lease", lease);
        return Failures.orUnavailable("extendLease", () -> ops.get().extendLease(key, fencingToken, leaseMs));
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        Arguments.checkKey(key);
        return Failures.orUnavailable("find", () -> ops.get().find(key));
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
        return Failures.orUnavailable("purgeExpired", () -> ops.get().purge(limit));
    }

    /** Server clock unless a test clock is set; no native expiry; the configured outcome limit. */
    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(false, clock == null, maxOutcomeBytes);
    }

    /**
     * True for this store, and for another JDBC store over the same {@code DataSource} (or
     * {@code Jdbi}) and table: both hold the same records.
     */
    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return store == this || store instanceof JdbcIdempotencyStore other && other.connections == connections
                && other.qualifiedTable.equals(qualifiedTable);
    }

    /** Does nothing: the store holds no resources of its own and never closes the user's DataSource. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        JdbcDialect d = ops.known();
        return "JdbcIdempotencyStore[" + qualifiedTable + ", " + (d == null ? "dialect not yet detected" : d)
                + (clock == null ? "" : ", test clock") + "]";
    }

    /** Validating builder; every setter rejects a bad value at once with a message naming it. */
    public static final class Builder {
        private final Jdbi jdbi;
        private final Object connections;
        private String schema;
        private String table = Schema.DEFAULT_TABLE;
        private JdbcDialect dialect;
        private int maxOutcomeBytes = 4 * 1024 * 1024;
        private int queryTimeoutSeconds = 10;
        private Clock clock;

        private Builder(Jdbi jdbi, Object connections) {
            this.jdbi = jdbi;
            this.connections = connections;
        }

        /**
         * The table name (default {@code idem_record}): letters, digits, underscores; up to 48 characters.
         *
         * @param table the table name
         * @return this builder
         */
        public Builder tableName(String table) {
            this.table = Schema.checkIdentifier("table", table);
            return this;
        }

        /**
         * The schema (or MySQL database) holding the table; default: the connection's current one.
         *
         * @param schema the schema name
         * @return this builder
         */
        public Builder schema(String schema) {
            this.schema = Schema.checkIdentifier("schema", schema);
            return this;
        }

        /**
         * The dialect, instead of detecting it from the connection's metadata on first use.
         *
         * @param dialect the dialect
         * @return this builder
         */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * The largest outcome (and step journal) accepted, in bytes (default 4 MiB). On
         * MySQL/MariaDB keep it below the server's {@code max_allowed_packet}.
         *
         * @param maxOutcomeBytes at least 1 MiB
         * @return this builder
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            this.maxOutcomeBytes = Arguments.checkMaxOutcomeBytes(maxOutcomeBytes);
            return this;
        }

        /**
         * The timeout of every statement the store issues (default 10 s); zero means none.
         * Bounds a statement stuck behind a lock; it does not replace the DataSource's connect
         * and socket timeouts. On MySQL/MariaDB and H2 it is the JDBC query timeout. On
         * PostgreSQL it is the connection's network timeout while the statement runs (pgjdbc's
         * query timeout schedules and cancels a timer task per statement, which costs more CPU
         * than the statement's own client work): a statement past it fails with a retryable
         * error and its connection is closed instead of being cancelled.
         *
         * @param timeout zero or whole seconds
         * @return this builder
         */
        public Builder queryTimeout(Duration timeout) {
            this.queryTimeoutSeconds = Arguments.queryTimeoutSeconds(timeout);
            return this;
        }

        /**
         * For tests and single-clock deployments: judge leases and expiry by {@code clock}
         * instead of the database clock. The same statements run, with this clock's reading
         * in place of the server's, so a test can move time with a mutable clock instead of
         * sleeping. Every store sharing the table must then use the same clock;
         * {@link StoreCapabilities#serverClock()} becomes false. Not set by default.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the store; no connection is made until the first operation unless a dialect is set.
         *
         * @return the store
         */
        public JdbcIdempotencyStore build() {
            return new JdbcIdempotencyStore(this);
        }
    }
}
