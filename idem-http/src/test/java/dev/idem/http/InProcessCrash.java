package dev.idem.http;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.jdbc.JdbcHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * A server "process" inside the test JVM whose crash is faithful where a real {@code kill -9}
 * cannot be had: at the crash point the worker's engine instance loses its store (every later
 * call of it fails without reaching the database: no heartbeat, release or completion), the
 * transaction's connection is aborted (the database rolls it back, as it does for a dead client),
 * and the worker's thread never returns until the test ends. {@link #awaitCrashAndRestart} then
 * starts a new engine instance over a new store on the same database, and the adapter's
 * {@link #execution} hands every later request to it.
 */
final class InProcessCrash implements TransactionalApp.Crash {
    private final DataSource dataSource;
    private final CountDownLatch end = new CountDownLatch(1);
    private volatile CountDownLatch crashed = new CountDownLatch(1);
    private volatile Instance current;
    private final IdempotencyEngine first;
    private final Mode mode;

    /** The transactional mode each engine instance runs handlers in. */
    interface Mode {
        HandlerExecution of(IdempotencyEngine engine, JdbcIdempotencyStore store);
    }

    /** One engine instance, its store and its execution. */
    private record Instance(Killable store, IdempotencyEngine engine, HandlerExecution execution) {
    }

    /** Crashes of servers in idem-http's JDBC transactional mode ({@link JdbcHandlerExecution}). */
    InProcessCrash(DataSource dataSource) {
        this(dataSource, JdbcHandlerExecution::of);
    }

    /** Crashes of servers in {@code mode}, over the JDBC store on {@code dataSource}. */
    InProcessCrash(DataSource dataSource, Mode mode) {
        this.dataSource = dataSource;
        this.mode = mode;
        this.current = start();
        this.first = current.engine();
    }

    private Instance start() {
        JdbcIdempotencyStore store = TransactionalApp.store(dataSource);
        Killable killable = new Killable(store);
        IdempotencyEngine engine = TransactionalApp.engine(killable);
        return new Instance(killable, engine, TransactionalApp.crashingAfterCommit(mode.of(engine, store), this));
    }

    /** The first instance's engine, for the adapter's HttpIdempotency (its ticker and limits). */
    IdempotencyEngine engine() {
        return first;
    }

    /** The execution the adapter's configuration runs handlers through: the live instance's. */
    final HandlerExecution execution = new HandlerExecution() {
        @Override
        public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
            return current.execution().execute(call, type, work);
        }

        @Override
        public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type, AsyncWork<? extends T> work) {
            return current.execution().executeAsync(call, type, work);
        }
    };

    @Override
    public void here(String point, Connection transaction) {
        current.store().kill();
        if (transaction != null) {
            try {
                // Aborted, not closed: a pool takes a closed connection back and may commit it
                // (restoring auto-commit commits, as Agroal does); a dead process leaves nothing.
                transaction.abort(Runnable::run);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        crashed.countDown();
        try {
            end.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new Crashed(point);
    }

    void awaitCrashAndRestart() throws InterruptedException {
        if (!crashed.await(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the server never reached its crash point");
        }
        crashed = new CountDownLatch(1);
        current = start();
    }

    /** Lets the crashed workers' threads end (with {@link Crashed}); call when the server stops. */
    void close() {
        end.countDown();
    }

    /** What a crashed worker's thread ends with once the test is over. */
    static final class Crashed extends Error {
        private static final long serialVersionUID = 1L;

        Crashed(String point) {
            super("crashed " + point);
        }
    }

    /** The store of one engine instance, which dies with it. */
    static final class Killable extends ForwardingIdempotencyStore {
        private volatile boolean dead;

        Killable(IdempotencyStore delegate) {
            super(delegate);
        }

        void kill() {
            dead = true;
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            if (dead) {
                throw new StoreUnavailableException("this engine instance crashed", null);
            }
            return call.get();
        }

        @Override
        protected <T> CompletionStage<T> aroundAsync(Operation operation, IdempotencyKey key,
                Supplier<? extends CompletionStage<T>> call) {
            if (dead) {
                return CompletableFuture.failedFuture(new StoreUnavailableException("this engine instance crashed",
                        null));
            }
            return call.get();
        }
    }
}
