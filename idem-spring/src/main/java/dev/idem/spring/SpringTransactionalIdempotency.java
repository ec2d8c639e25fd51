package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC transactional mode inside Spring-managed transactions: the work's writes (through
 * {@code JdbcTemplate}, JPA, or anything else bound to the same {@code DataSource}) and the
 * fenced completion of the idempotency record commit together, or not at all.
 *
 * <pre>{@code
 * Result<Charge> r = idempotency.execute(key, request, Charge.class, ctx -> {
 *     jdbcTemplate.update("insert into charge ...", ...);   // joins the transaction
 *     return charge;
 * });
 * }</pre>
 *
 * <h2>Algorithm</h2>
 * The engine claims the key on a connection of its own (committed at once, so duplicates see
 * it). The work then runs in a Spring transaction with {@code PROPAGATION_REQUIRED}: the
 * caller's {@code @Transactional} transaction if there is one, else a new one. Before that
 * transaction commits, the record is completed on the same connection
 * ({@link DataSourceUtils#getConnection}), fenced by the claim's token. If the token is no
 * longer current (the lease lapsed and a duplicate took over) nothing matches,
 * {@link LeaseLostException} is thrown and the whole transaction rolls back, so the stale
 * worker's business rows never persist, while the taker-over's do.
 *
 * <p>When the caller's own transaction rolls back later (after this method returned), the
 * record stays in progress until its lease lapses and the next retry takes over and runs
 * again: no effect is lost or doubled. The {@code DataSource} must be the one the JDBC store
 * uses, and a {@link PlatformTransactionManager} must manage it. Joining a caller's
 * transaction needs the auto-configured engine: after the work, the engine reads the record
 * on its own connection to check it was completed, and the auto-configured engine's store
 * answers that read with what the still-open transaction will commit.
 *
 * <p>Thread-safe.
 */
public final class SpringTransactionalIdempotency implements TransactionalExecutor {
    private final IdempotencyEngine engine;
    private final JdbcIdempotencyStore store;
    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private final Jdbi springJdbi;
    private final String unavailable;
    private final TransactionViews views;

    /**
     * Creates the executor. Missing pieces (a store that is not JDBC, no unique DataSource or
     * transaction manager) are reported by each call, so the bean can exist in every
     * application.
     *
     * @param engine the engine, over {@code store}
     * @param store the JDBC store, or null if the engine's store is not JDBC
     * @param dataSource the DataSource the store and the business code share, or null
     * @param transactionManager the transaction manager of that DataSource, or null
     */
    public SpringTransactionalIdempotency(IdempotencyEngine engine, JdbcIdempotencyStore store,
            DataSource dataSource, PlatformTransactionManager transactionManager) {
        this(engine, store, dataSource, transactionManager, null);
    }

    /**
     * Creates the executor with the view that lets the engine see completions made in a
     * caller's still-open transaction (the auto-configured engine's store is decorated with it).
     *
     * @param engine the engine, over {@code store} decorated with {@code views}
     * @param store the JDBC store, or null if the engine's store is not JDBC
     * @param dataSource the DataSource the store and the business code share, or null
     * @param transactionManager the transaction manager of that DataSource, or null
     * @param views the view the engine's store is decorated with, or null
     */
    public SpringTransactionalIdempotency(IdempotencyEngine engine, JdbcIdempotencyStore store, DataSource dataSource,
            PlatformTransactionManager transactionManager, TransactionViews views) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.views = views;
        this.store = store;
        this.dataSource = dataSource;
        this.transactions = transactionManager == null ? null : new TransactionTemplate(transactionManager);
        this.unavailable = store == null ? "the idempotency store is not the JDBC store"
                : dataSource == null ? "the application has no unique DataSource"
                : transactionManager == null ? "the application has no unique PlatformTransactionManager" : null;
        this.springJdbi = dataSource == null ? null : Jdbi.create(new SpringConnections(dataSource));
        if (springJdbi != null) {
            // Spring commits or rolls back; a handle must not end the transaction it joined.
            springJdbi.getConfig(Handles.class).setForceEndTransactions(false);
        }
    }

    @Override
    public Optional<String> unavailable() {
        return Optional.ofNullable(unavailable);
    }

    /**
     * Runs {@code work} once for {@code key} inside a Spring transaction that also completes
     * the record; replays decode the stored result as {@code type}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result class
     * @param work the business work; its writes must go through the shared DataSource
     * @return the result, replayed or fresh
     * @throws LeaseLostException if a duplicate took the lapsed lease over (rolled back)
     * @throws IllegalStateException if the transactional mode is not available here
     */
    public <T> Result<T> execute(IdempotencyKey key, Object request, Class<T> type, Work<? extends T> work) {
        Objects.requireNonNull(type, "type");
        return execute(key, request, new TypeReference<T>() {
            @Override
            public java.lang.reflect.Type getType() {
                return type;
            }
        }, CallOptions.defaults(), work);
    }

    /**
     * Like {@link #execute(IdempotencyKey, Object, Class, Work)} with a generic type and
     * per-call options.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type
     * @param options per-call options (TTL, lease, in-progress policy)
     * @param work the business work
     * @return the result, replayed or fresh
     */
    @Override
    public <T> Result<T> execute(IdempotencyKey key, Object request, TypeReference<T> type, CallOptions options,
            Work<? extends T> work) {
        if (unavailable != null) {
            throw new IllegalStateException("the transactional mode needs the JDBC store over a DataSource with "
                    + "a Spring transaction manager, but " + unavailable);
        }
        Objects.requireNonNull(work, "work");
        try {
            return executeAtomically(key, request, type, options, work);
        } finally {
            if (views != null) {
                views.forget(key);
            }
        }
    }

    private <T> Result<T> executeAtomically(IdempotencyKey key, Object request, TypeReference<T> type,
            CallOptions options, Work<? extends T> work) {
        return engine.executeAtomically(key, request, type, options, (ctx, completion) -> {
            try {
                return transactions.execute(status -> {
                    T value;
                    try {
                        value = work.execute(ctx);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CheckedFailure(e);
                    }
                    byte[] outcome = completion.encode(value);
                    boolean completed;
                    try (Handle handle = springJdbi.open()) {
                        completed = store.completeWithin(handle, ctx.key(), ctx.fencingToken(), outcome,
                                completion.ttl());
                    }
                    if (!completed) {
                        throw new LeaseLostException(ctx.key(), ctx.fencingToken());
                    }
                    if (views != null) {
                        views.completed(ctx.key(), ctx.fencingToken(), outcome);
                    }
                    return value;
                });
            } catch (CheckedFailure e) {
                throw e.checked;
            }
        });
    }

    /** Carries a checked exception of the work through the transaction callback (which rolls back). */
    private static final class CheckedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Exception checked;

        CheckedFailure(Exception checked) {
            super(checked.getMessage(), checked, false, false);
            this.checked = checked;
        }
    }

    /** Connections bound to the current Spring transaction, released (not closed) after use. */
    private static final class SpringConnections implements org.jdbi.v3.core.ConnectionFactory {
        private final DataSource dataSource;

        SpringConnections(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        public Connection openConnection() {
            return DataSourceUtils.getConnection(dataSource);
        }

        @Override
        public void closeConnection(Connection connection) {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
