package dev.idem.http.jdbc;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import dev.idem.engine.AtomicStepAction;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.StepAction;
import dev.idem.engine.StepReconciler;
import dev.idem.engine.VoidStepAction;
import dev.idem.http.HttpIdempotency;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The execution context a handler run by {@link JdbcHandlerExecution} finds where every handler
 * finds its context (the exchange or request attribute, or Jakarta REST request property,
 * {@link HttpIdempotency#CONTEXT_ATTRIBUTE}): the engine's context, plus the {@link Handle} of
 * the transaction the handler runs in. What the handler writes on {@link #handle()} commits
 * together with its stored response, or rolls back with it.
 *
 * <pre>{@code
 * TransactionalContext tx = TransactionalContext.of(request.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE));
 * tx.handle().execute("insert into charge (id, amount) values (?, ?)", id, amount);
 * }</pre>
 *
 * Every other method is the engine's context's. Not thread-safe, as a handle is not: use it on
 * the handler's thread while the handler runs.
 */
public final class TransactionalContext implements ExecutionContext {
    private final ExecutionContext context;
    private final Handle handle;

    TransactionalContext(ExecutionContext context, Handle handle) {
        this.context = Objects.requireNonNull(context, "context");
        this.handle = Objects.requireNonNull(handle, "handle");
    }

    /**
     * The transactional context in {@code attribute}, the value of
     * {@link HttpIdempotency#CONTEXT_ATTRIBUTE} a covered handler finds.
     *
     * @param attribute the attribute's value
     * @return the context
     * @throws IllegalStateException if the request is not covered, or its configuration does not
     *     run handlers through {@link JdbcHandlerExecution}: the handler's writes would not commit
     *     with its stored response
     */
    public static TransactionalContext of(Object attribute) {
        if (attribute instanceof TransactionalContext tx) {
            return tx;
        }
        throw new IllegalStateException(attribute == null
                ? "no idempotent execution runs this request (it is not covered), so there is no transaction"
                        + " that stores its response"
                : "this request's handler does not run in the JDBC transactional mode: build its HttpIdempotency"
                        + " with .execution(JdbcHandlerExecution.of(engine, store))");
    }

    /**
     * The handle of the transaction this handler runs in, which also completes the record.
     * Do not commit, roll back or close it: the transactional mode does, after the handler.
     *
     * @return the handle
     */
    public Handle handle() {
        return handle;
    }

    @Override
    public IdempotencyKey key() {
        return context.key();
    }

    @Override
    public long fencingToken() {
        return context.fencingToken();
    }

    @Override
    public int attempt() {
        return context.attempt();
    }

    @Override
    public Instant leaseDeadline() {
        return context.leaseDeadline();
    }

    @Override
    public Optional<Deadline> deadline() {
        return context.deadline();
    }

    @Override
    public String downstreamKey() {
        return context.downstreamKey();
    }

    @Override
    public Instant extendLease(Duration lease) {
        return context.extendLease(lease);
    }

    @Override
    public <R> R step(String name, Class<R> type, StepAction<? extends R> action) throws Exception {
        return context.step(name, type, action);
    }

    @Override
    public <R> R step(String name, TypeReference<R> type, StepAction<? extends R> action) throws Exception {
        return context.step(name, type, action);
    }

    @Override
    public <R> R atMostOnceStep(String name, Class<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        return context.atMostOnceStep(name, type, action, reconcile);
    }

    @Override
    public <R> R atMostOnceStep(String name, TypeReference<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        return context.atMostOnceStep(name, type, action, reconcile);
    }

    @Override
    public <R> R atomicStep(String name, Class<R> type, AtomicStepAction<? extends R> action) throws Exception {
        return context.atomicStep(name, type, action);
    }

    @Override
    public <R> R atomicStep(String name, TypeReference<R> type, AtomicStepAction<? extends R> action)
            throws Exception {
        return context.atomicStep(name, type, action);
    }

    @Override
    public void step(String name, VoidStepAction action) throws Exception {
        context.step(name, action);
    }

    @Override
    public String downstreamKey(String stepName) {
        return context.downstreamKey(stepName);
    }

    @Override
    public String toString() {
        return context.toString();
    }
}
