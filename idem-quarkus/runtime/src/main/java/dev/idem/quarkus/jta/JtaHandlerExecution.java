package dev.idem.quarkus.jta;

import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.AsyncWork;
import dev.idem.engine.AtomicWork;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import dev.idem.http.jdbc.TransactionalContext;
import dev.idem.jaxrs.JaxrsRoutes;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;

/**
 * The JTA transactional mode on Quarkus REST: a covered resource method runs in a JTA transaction
 * of the application's transaction manager (Narayana) that also stores its response. What the
 * method writes through the JDBC store's Agroal datasource in that transaction (through a
 * {@code @Transactional} bean whose transaction type joins one, {@code REQUIRED}, {@code MANDATORY}
 * or {@code SUPPORTS}; through the injected {@code AgroalDataSource}; through Hibernate on that
 * datasource; or through the handle of its {@link TransactionalContext}) commits together with the
 * stored response, or not at all. A process that dies before the commit leaves no write behind
 * (the retry runs the method once, after the lease lapses); one that dies after it leaves both,
 * and the retry gets the stored response.
 *
 * <pre>{@code
 * HttpIdempotency idempotency = HttpIdempotency.builder(engine)
 *         .execution(JtaHandlerExecution.of(engine, store, transactionManager))
 *         .build();
 * }</pre>
 *
 * ({@code idem.http.transactional=true} builds the extension's configuration so.)
 *
 * <h2>Algorithm</h2>
 * It is the engine's {@code executeAtomically} with the JDBC store's fenced completion
 * ({@link JdbcIdempotencyStore#completeWithin}), the algorithm of idem-http's
 * {@code JdbcHandlerExecution} and of the Spring starter's transactional mode, with the transaction
 * demarcated by JTA instead of by Jdbi or Spring: the key is claimed on a connection of its own and
 * committed at once (so duplicates see it in progress); this execution then begins a JTA
 * transaction and opens a handle on the store's datasource (Agroal enlists its connection, the one
 * every later use of the datasource in the transaction shares); the resource method runs with that
 * transaction associated with its thread; its response, encoded by the engine, completes the
 * record on the handle, fenced by the claim's token; then the transaction commits. A method that
 * throws, a response the storage policy does not store (5xx, 409, 429, ...), a transaction marked
 * for rollback, or a lease taken over meanwhile (the fenced completion matches nothing:
 * {@link LeaseLostException}) rolls everything back: what is not stored must not have happened,
 * since its retry runs again. No Jdbi transaction is begun or committed: the handle only runs
 * statements in the JTA transaction.
 *
 * <h2>Threads</h2>
 * Quarkus REST runs the resource method on its own thread while idem's filters wait for the
 * response without blocking it. The blocking engine call runs on a thread of this execution's
 * executor, which begins the transaction, suspends it, and hands it to the request (the request
 * property {@link #TRANSACTION_PROPERTY}); the extension's interceptor on {@code @Idempotent}
 * methods resumes it on the method's thread for the duration of the call and suspends it after,
 * whatever the method does, so a worker thread never keeps a request's transaction. The
 * executor's thread resumes it once the response is captured, then completes and commits. Only
 * {@code @Idempotent} resource methods that return their response (not a {@code Uni},
 * {@code CompletionStage} or {@code Multi}: their work would run after the call, outside the
 * transaction) can run in the mode; any other covered request is refused before its key is claimed.
 * Thread-safe.
 */
public final class JtaHandlerExecution implements HandlerExecution {
    /**
     * The request property that holds the covered request's JTA {@link Transaction} while its
     * resource method may run (suspended from every thread until the method's thread resumes it).
     */
    public static final String TRANSACTION_PROPERTY = "dev.idem.quarkus.jta.transaction";

    /**
     * The request property the extension's interceptor sets to the request's {@link Transaction}
     * once it resumed it on the resource method's thread: a method that ran without it (never
     * intercepted) wrote outside the transaction, and its response is not stored.
     */
    public static final String JOINED_PROPERTY = "dev.idem.quarkus.jta.joined";

    private static final System.Logger LOG = System.getLogger(JtaHandlerExecution.class.getName());
    private static final List<String> DEFERRED_RESULTS = List.of("java.util.concurrent.CompletionStage",
            "java.util.concurrent.Flow$Publisher", "org.reactivestreams.Publisher", "io.smallrye.mutiny.Uni",
            "io.smallrye.mutiny.Multi");
    private static final AtomicInteger THREADS = new AtomicInteger();
    // Each waits for one resource method (a request), so the server's own pool bounds how many there are.
    private static final ExecutorService WAITERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "idem-jta-transaction-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private final IdempotencyEngine engine;
    private final JdbcIdempotencyStore store;
    private final TransactionManager transactions;
    private final Executor executor;

    private JtaHandlerExecution(IdempotencyEngine engine, JdbcIdempotencyStore store,
            TransactionManager transactions, Executor executor) {
        this.engine = engine;
        this.store = store;
        this.transactions = transactions;
        this.executor = executor;
    }

    /**
     * The JTA mode of {@code engine} over {@code store}.
     *
     * @param engine the engine; its store must be {@code store} (or a decorator of it, or a store
     *     over the same {@code DataSource} and table)
     * @param store the JDBC store, built over an Agroal datasource whose connections take part in
     *     {@code transactions}' transactions (Quarkus's {@code jdbc.transactions=enabled} or
     *     {@code xa}); a request whose connection does not is refused before its method runs
     * @param transactions the application's transaction manager (the {@code TransactionManager} bean)
     * @return the execution
     * @throws IllegalArgumentException if the engine runs on another store: its records could never
     *     commit with the method's writes, so the mode is refused before any request
     */
    public static JtaHandlerExecution of(IdempotencyEngine engine, JdbcIdempotencyStore store,
            TransactionManager transactions) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(transactions, "transactions");
        if (!engine.store().isBackedBy(store)) {
            throw new IllegalArgumentException("the JTA transactional mode needs the engine on the store whose "
                    + "transaction stores the response, but the engine runs on " + engine.store() + ", not on "
                    + store + ": build the engine with .store(store)");
        }
        return new JtaHandlerExecution(engine, store, transactions, WAITERS);
    }

    /**
     * This execution with {@link #executeAsync}'s blocking calls on {@code executor} (by default a
     * shared pool of daemon threads, one per resource method that runs).
     *
     * @param executor where each asynchronous call waits for its resource method; it must not queue
     *     a task behind another that waits (a bounded pool may deadlock under load)
     * @return a new execution
     */
    public JtaHandlerExecution executor(Executor executor) {
        return new JtaHandlerExecution(engine, store, transactions, Objects.requireNonNull(executor, "executor"));
    }

    /**
     * Runs the handler on the calling thread, in a JTA transaction associated with that thread
     * from its start to its commit.
     *
     * @param <T> the result type
     * @param call what is being run
     * @param type the result type
     * @param work the handler
     * @return the result
     * @throws IllegalStateException if the calling thread is already in a transaction: the claim
     *     would be made in it, unseen by duplicates until it commits
     */
    @Override
    public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
        Objects.requireNonNull(work, "work");
        if (status() != Status.STATUS_NO_TRANSACTION) {
            throw new IllegalStateException("the JTA transactional mode claims the key outside any transaction and"
                    + " begins its own after the claim, but " + call.operationName() + " is called in a transaction");
        }
        return engine.executeAtomically(call.key(), call.fingerprint(), type, call.options(),
                atomic((ctx, tx) -> work.execute(ctx)));
    }

    /**
     * Runs the resource method of a Quarkus REST request in a JTA transaction that its thread
     * holds while the method runs (see the class's Javadoc).
     *
     * @param <T> the result type
     * @param call what is being run
     * @param type the result type
     * @param work the handler, returning a stage
     * @return the result; failed with {@link IllegalStateException}, before anything is claimed, if
     *     the request is not a Quarkus REST request to an {@code @Idempotent} method that returns its
     *     response
     */
    @Override
    public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type, AsyncWork<? extends T> work) {
        Objects.requireNonNull(work, "work");
        ContainerRequestContext request = call.request().unwrap(ContainerRequestContext.class).orElse(null);
        String refused = refusal(call, request);
        if (refused != null) {
            return CompletableFuture.failedFuture(new IllegalStateException(refused));
        }
        CompletableFuture<Result<T>> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(engine.executeAtomically(call.key(), call.fingerprint(), type, call.options(),
                            atomic((ctx, tx) -> onRequestThread(request, tx, () -> work.execute(ctx)))));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** Why {@code call} cannot run in the mode, or null. */
    private static String refusal(Call call, ContainerRequestContext request) {
        ResourceInfo resource = call.request().unwrap(ResourceInfo.class).orElse(null);
        Method method = resource == null ? null : resource.getResourceMethod();
        if (request == null || method == null) {
            return "the JTA transactional mode runs Quarkus REST resource methods, and " + call.operationName()
                    + " is not one";
        }
        if (JaxrsRoutes.configuration(resource.getResourceClass(), method).isEmpty()) {
            return "the JTA transactional mode holds the transaction around @Idempotent methods only, and "
                    + resource.getResourceClass().getName() + "." + method.getName() + " is covered without the"
                    + " annotation (idem.http.routes): annotate it @Idempotent";
        }
        if (deferred(method.getReturnType())) {
            return deferredRefusal(method);
        }
        return null;
    }

    /** Whether {@code type} is (or extends) a type whose work runs after the method returned it. */
    private static boolean deferred(Class<?> type) {
        if (type == null) {
            return false;
        }
        if (DEFERRED_RESULTS.contains(type.getName())) {
            return true;
        }
        for (Class<?> i : type.getInterfaces()) {
            if (deferred(i)) {
                return true;
            }
        }
        return deferred(type.getSuperclass());
    }

    private static String deferredRefusal(Method method) {
        return "the JTA transactional mode runs resource methods that return their response, but "
                + method.getDeclaringClass().getName() + "." + method.getName() + " returns a "
                + method.getReturnType().getSimpleName() + ", whose work would run after the call, outside the"
                + " transaction: return the response (a blocking method), or leave the mode off";
    }

    /** The handler, given the transaction it runs in. */
    private interface Handler<T> {
        T run(TransactionalContext context, Transaction transaction) throws Exception;
    }

    /** Starts the request's resource method, which completes the stage with its response. */
    private interface Start<T> {
        CompletionStage<? extends T> start() throws Exception;
    }

    private <T> AtomicWork<T> atomic(Handler<T> handler) {
        JdbcIdempotencyStore bound = store;
        return new AtomicWork<>() {
            @Override
            public T executeAndComplete(ExecutionContext context, Completion completion) throws Exception {
                return inTransaction(context, completion, handler);
            }

            @Override
            public IdempotencyStore store() {
                return bound;
            }
        };
    }

    private <T> T inTransaction(ExecutionContext context, AtomicWork.Completion completion, Handler<T> handler)
            throws Exception {
        transactions.begin();
        Transaction transaction = transactions.getTransaction();
        boolean committed = false;
        Handle handle = null;
        try {
            try {
                handle = store.jdbi().open();
            } catch (JdbiException e) {
                throw new StoreUnavailableException("no connection for the transaction of " + context.key()
                        + " (its work did not run): " + e.getMessage(), e);
            }
            if (handle.getConnection().getAutoCommit()) {
                throw new IllegalStateException("the JDBC store's connection did not join the JTA transaction: its "
                        + "datasource must be an Agroal datasource with transactions enabled (jdbc.transactions)");
            }
            T value = handler.run(TransactionalContext.of(context, handle), transaction);
            int status = status();
            if (status != Status.STATUS_ACTIVE) {
                throw new IllegalStateException("the transaction of " + context.key() + " can only roll back ("
                        + (status == Status.STATUS_MARKED_ROLLBACK ? "a @Transactional method the resource called threw"
                                : "it timed out, JTA status " + status) + "): nothing it wrote is kept, and its"
                        + " response is not stored");
            }
            byte[] outcome = completion.encode(value);
            if (!store.completeWithin(handle, context.key(), context.fencingToken(), outcome, completion.ttl())) {
                throw new LeaseLostException(context.key(), context.fencingToken());
            }
            handle.close();
            handle = null;
            commit();
            committed = true;
            return value;
        } finally {
            if (handle != null) {
                closeQuietly(handle);
            }
            if (!committed) {
                rollback(transaction);
            }
        }
    }

    /** Runs {@code start} on the request's own thread, which holds {@code transaction} meanwhile. */
    private <T> T onRequestThread(ContainerRequestContext request, Transaction transaction, Start<T> start)
            throws Exception {
        transactions.suspend();
        request.setProperty(TRANSACTION_PROPERTY, transaction);
        T value;
        try {
            value = await(start.start());
        } finally {
            // The method's thread has suspended it again (the interceptor's finally) before its
            // response reached the filter that completes the stage.
            request.removeProperty(TRANSACTION_PROPERTY);
            transactions.resume(transaction);
        }
        if (request.getProperty(JOINED_PROPERTY) != transaction) {
            // Whatever it wrote committed on its own: storing its response would hide that from no
            // one, and storing none lets the retry run it again; say so loudly, store nothing.
            throw new IllegalStateException("the resource method of this request ran outside its JTA transaction"
                    + " (the extension's interceptor did not run on it): its writes did not join the transaction,"
                    + " so its response is not stored. Declare @Idempotent on the resource method or its own"
                    + " class, on a CDI-managed resource");
        }
        return value;
    }

    private void commit() throws Exception {
        try {
            transactions.commit();
        } catch (HeuristicMixedException | HeuristicRollbackException | SystemException e) {
            // One resource, committed in one phase: its writes and the stored response together or not at all.
            throw new StoreUnavailableException("the commit of the JTA transaction failed: " + e, e);
        }
    }

    private void rollback(Transaction transaction) {
        try {
            if (transactions.getTransaction() != null) {
                transactions.rollback();
            } else {
                transaction.rollback();
            }
        } catch (IllegalStateException | SystemException e) {
            // Already ended (a timeout rolled it back): nothing of it is kept.
            LOG.log(System.Logger.Level.DEBUG, "the JTA transaction had already ended", e);
        } finally {
            try {
                if (transactions.getTransaction() != null) {
                    transactions.suspend();
                }
            } catch (SystemException e) {
                LOG.log(System.Logger.Level.WARNING, "could not dissociate an ended JTA transaction", e);
            }
        }
    }

    private int status() {
        try {
            return transactions.getStatus();
        } catch (SystemException e) {
            throw new IllegalStateException("the transaction manager cannot tell the thread's transaction", e);
        }
    }

    private static void closeQuietly(Handle handle) {
        try {
            handle.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the handle of a rolled back transaction failed", e);
        }
    }

    private static <T> T await(CompletionStage<? extends T> stage) throws Exception {
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
        return "JtaHandlerExecution[" + store + "]";
    }
}
