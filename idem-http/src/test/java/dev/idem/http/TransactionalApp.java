package dev.idem.http;

import dev.idem.engine.ExecutionContext;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.jdbc.JdbcHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The application of the transactional contract suite ({@link AbstractTransactionalHttpContract}), shared by
 * every adapter's test: {@code POST /tx/charges} books one row of {@code tx_charge} for its
 * Idempotency-Key in the transaction its adapter's mode runs it in ({@link Ledger}: the handle of
 * idem's transaction, Spring's {@code JdbcTemplate}, a {@code @Transactional} bean), then answers
 * 201, or fails as its {@code X-Fail} header says, or crashes where its {@code X-Crash} header says
 * ({@link Crash}).
 */
final class TransactionalApp {
    static final String PATH = "/tx/charges";
    static final String CRASH = "X-Crash";
    static final String FAIL = "X-Fail";
    static final String BEFORE_COMMIT = "before-commit";
    static final String AFTER_COMMIT = "after-commit";
    /** Short, so that a retry after a crash takes over within seconds. */
    static final Duration LEASE = Duration.ofSeconds(2);

    /** What the application answers. */
    record Reply(int status, String contentType, byte[] body) {
    }

    /** The process dies here: nothing this worker does reaches the database after this call, which never returns. */
    interface Crash {
        /**
         * Dies.
         *
         * @param point where
         * @param transaction the connection of the transaction the handler writes in (which an
         *     in-process crash aborts), or null after the commit
         */
        void here(String point, Connection transaction);
    }

    /** Where the handler books its row: the transaction its adapter's mode runs it in. */
    interface Ledger {
        /** Books one row of {@code tx_charge} in the transaction. */
        void book(String id, String key, int attempt);

        /** The connection the transaction holds, for a crash to abort. */
        Connection connection();

        /** The ledger on {@code handle}, the transaction's own. */
        static Ledger on(Handle handle) {
            return new Ledger() {
                @Override
                public void book(String id, String key, int attempt) {
                    handle.execute(INSERT, id, key, attempt);
                }

                @Override
                public Connection connection() {
                    return handle.getConnection();
                }
            };
        }
    }

    /** The row one execution books. */
    static final String INSERT = "insert into tx_charge (id, idem_key, attempt) values (?, ?, ?)";

    private TransactionalApp() {
    }

    /** The engine of every server of the suite: IllegalArgumentException is a final failure. */
    static IdempotencyEngine engine(dev.idem.api.store.IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(LEASE).ttl(Duration.ofHours(1))
                .failureClassifier(classifier()).build();
    }

    /**
     * IllegalArgumentException, also as the cause a server wrapped it in (Spring MVC's
     * ServletException), is a final failure; anything else transient.
     */
    static FailureClassifier classifier() {
        return e -> {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IllegalArgumentException) {
                    return FailureDecision.finalFailure("card_declined", t.getMessage());
                }
            }
            return FailureDecision.transientFailure();
        };
    }

    static JdbcIdempotencyStore store(DataSource dataSource) {
        return JdbcIdempotencyStore.builder(dataSource).build();
    }

    /** The record table and the application's table. */
    static void createTables(DataSource dataSource) {
        store(dataSource).createTableIfNotExists();
        Jdbi.create(dataSource).useHandle(h -> h.execute("create table if not exists tx_charge "
                + "(id varchar(64) primary key, idem_key varchar(255) not null, attempt int not null)"));
    }

    /** The configuration of every server of the suite, with {@code execution} running the handlers. */
    static HttpIdempotency config(IdempotencyEngine engine, HandlerExecution execution) {
        return HttpIdempotency.builder(engine).principals(PrincipalResolver.apiKeyHeader("X-Api-Key"))
                .execution(execution).build();
    }

    /** The configuration over {@link JdbcHandlerExecution}, crashing after its commit where asked. */
    static HttpIdempotency config(IdempotencyEngine engine, JdbcIdempotencyStore store, Crash crash) {
        return config(engine, crashingAfterCommit(JdbcHandlerExecution.of(engine, store), crash));
    }

    /** {@code execution}, with the process dying after its commit and before the response on requests that ask. */
    static HandlerExecution crashingAfterCommit(HandlerExecution execution, Crash crash) {
        return new HandlerExecution() {
            @Override
            public <T> dev.idem.engine.Result<T> execute(Call call, Class<T> type, dev.idem.engine.Work<? extends T> work) {
                dev.idem.engine.Result<T> result = execution.execute(call, type, work);
                crashIfAsked(call);
                return result;
            }

            @Override
            public <T> java.util.concurrent.CompletableFuture<dev.idem.engine.Result<T>> executeAsync(Call call,
                    Class<T> type, dev.idem.engine.AsyncWork<? extends T> work) {
                return execution.executeAsync(call, type, work).thenApply(result -> {
                    crashIfAsked(call);
                    return result;
                });
            }

            private void crashIfAsked(Call call) {
                if (call.request().header(CRASH).filter(AFTER_COMMIT::equals).isPresent()) {
                    crash.here(AFTER_COMMIT, null);
                }
            }
        };
    }

    /** Rows booked for {@code key}. */
    static int effects(Jdbi jdbi, String key) {
        return jdbi.withHandle(h -> h.createQuery("select count(*) from tx_charge where idem_key = :k")
                .bind("k", key).mapTo(Integer.class).one());
    }

    /** The handler on the handle of idem's transaction ({@link Ledger#on}). */
    static Reply handle(Object context, Handle handle, String key, Optional<String> crash, Optional<String> fail,
            Crash crasher) {
        return handle(context, Ledger.on(handle), key, crash, fail, crasher);
    }

    /**
     * The handler: one row in {@code ledger}, then the answer.
     *
     * @param context the context attribute the handler found
     * @param ledger where it books the row
     * @param key the request's Idempotency-Key
     * @param crash the request's X-Crash header
     * @param fail the request's X-Fail header
     */
    static Reply handle(Object context, Ledger ledger, String key, Optional<String> crash, Optional<String> fail,
            Crash crasher) {
        ExecutionContext ctx = (ExecutionContext) context;
        String id = "ch_" + UUID.randomUUID();
        ledger.book(id, key, ctx.attempt());
        if (crash.filter(BEFORE_COMMIT::equals).isPresent()) {
            crasher.here(BEFORE_COMMIT, ledger.connection());
        }
        switch (fail.orElse("")) {
            case "transient":
                throw new IllegalStateException("the handler failed after its write");
            case "final":
                throw new IllegalArgumentException("card declined");
            case "unstored":
                return new Reply(503, "text/plain", "try later".getBytes(StandardCharsets.UTF_8));
            default:
                String json = "{\"id\":\"" + id + "\",\"attempt\":" + ctx.attempt() + "}";
                return new Reply(201, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }
    }
}
