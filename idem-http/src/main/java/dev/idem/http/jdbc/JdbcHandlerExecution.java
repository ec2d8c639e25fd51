package dev.idem.http.jdbc;

import com.sun.net.httpserver.HttpHandler;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import dev.idem.http.HttpIdempotency;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.jdbc.TransactionalWork;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDBC transactional mode for idem-http's adapters: a covered handler runs in a transaction
 * of the JDBC store's database, and its response is stored in that same transaction, so the
 * handler's writes and the stored response commit together or not at all. A process that dies
 * before the commit leaves no write behind (the retry runs the handler once, after the lease
 * lapses); one that dies after it leaves both, and the retry gets the stored response.
 *
 * <pre>{@code
 * HttpIdempotency idempotency = HttpIdempotency.builder(engine)
 *         .execution(JdbcHandlerExecution.of(engine, store))
 *         .build();
 * }</pre>
 *
 * The handler reaches the transaction through {@link TransactionalContext#handle()} (the context
 * attribute {@link HttpIdempotency#CONTEXT_ATTRIBUTE} holds a {@link TransactionalContext}); on
 * the JDK server, {@link #handler(TransactionalHttpHandler)} passes the handle as a parameter.
 *
 * <p>It is the engine's {@code executeAtomically} over store-jdbc's
 * {@link JdbcIdempotencyStore#transactional(TransactionalWork)}, the algorithm the Spring
 * starters' transactional mode runs too: the key is claimed on a connection of its own and
 * committed at once (so duplicates see it); the handler runs in a new transaction; its response,
 * encoded by the engine, completes the record in that transaction, fenced by the claim's token. A
 * handler whose lease was taken over meanwhile is rolled back (409 to its caller). A handler that
 * throws, or whose response the storage policy does not store (5xx, 409, 429, ...), is rolled
 * back too: what is not stored must not have happened, since its retry runs again.
 *
 * <p>Reactive adapters (Jakarta REST, whose handler runs between two filters) call
 * {@link #executeAsync}: the same blocking call runs on a thread of this execution's executor,
 * which waits for the handler's response while the handler writes on the transaction from its own
 * thread (one thread at a time: the handler runs while that thread waits, the commit after the
 * handler's response is captured). Thread-safe.
 */
public final class JdbcHandlerExecution implements HandlerExecution {
    private static final AtomicInteger THREADS = new AtomicInteger();
    // Each waits for one handler (a server thread), so the server's own pool bounds how many there are.
    private static final ExecutorService WAITERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "idem-http-transaction-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private final IdempotencyEngine engine;
    private final JdbcIdempotencyStore store;
    private final Executor executor;

    private JdbcHandlerExecution(IdempotencyEngine engine, JdbcIdempotencyStore store, Executor executor) {
        this.engine = engine;
        this.store = store;
        this.executor = executor;
    }

    /**
     * The transactional mode of {@code engine} over {@code store}.
     *
     * @param engine the engine; its store must be {@code store} (or a decorator of it, or a store
     *     over the same {@code DataSource} and table)
     * @param store the JDBC store, in the database the handlers write to
     * @return the execution
     * @throws IllegalArgumentException if the engine runs on another store: its records could never
     *     commit with the handler's writes, so the mode is refused before any request
     */
    public static JdbcHandlerExecution of(IdempotencyEngine engine, JdbcIdempotencyStore store) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(store, "store");
        if (!engine.store().isBackedBy(store)) {
            throw new IllegalArgumentException("the JDBC transactional mode needs the engine on the store whose "
                    + "transaction stores the response, but the engine runs on " + engine.store() + ", not on "
                    + store + ": build the engine with .store(store)");
        }
        return new JdbcHandlerExecution(engine, store, WAITERS);
    }

    /**
     * This execution with {@link #executeAsync}'s blocking calls on {@code executor} (by default a
     * shared pool of daemon threads, one per handler that runs).
     *
     * @param executor where each asynchronous call waits for its handler; it must not queue a task
     *     behind another that waits (a bounded pool may deadlock under load)
     * @return a new execution
     */
    public JdbcHandlerExecution executor(Executor executor) {
        return new JdbcHandlerExecution(engine, store, Objects.requireNonNull(executor, "executor"));
    }

    @Override
    public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
        Objects.requireNonNull(work, "work");
        TransactionalWork<T> inTransaction = (handle, ctx) -> work.execute(new TransactionalContext(ctx, handle));
        return engine.executeAtomically(call.key(), call.fingerprint(), type, call.options(),
                store.transactional(inTransaction));
    }

    @Override
    public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type, AsyncWork<? extends T> work) {
        Objects.requireNonNull(work, "work");
        CompletableFuture<Result<T>> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(execute(call, type, ctx -> await(work.execute(ctx))));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /**
     * An ordinary JDK server handler over {@code handler}: on a covered request it passes the
     * handle of the transaction this execution runs it in; on any other request, the handle of a
     * transaction of its own on the store's database ({@link JdbcIdempotencyStore#jdbi()}),
     * committed when the handler returns and rolled back when it throws.
     *
     * @param handler the application's handler
     * @return the handler to wrap in an {@code IdempotentHttpHandler}
     */
    public HttpHandler handler(TransactionalHttpHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return exchange -> {
            Object context = exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
            if (context == null) {
                store.jdbi().useTransaction(h -> handler.handle(exchange, h));
            } else {
                handler.handle(exchange, TransactionalContext.of(context).handle());
            }
        };
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception x) {
                throw x;
            }
            if (cause instanceof Error x) {
                throw x;
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return "JdbcHandlerExecution[" + store + "]";
    }
}
