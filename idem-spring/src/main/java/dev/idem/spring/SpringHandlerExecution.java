package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.util.pattern.PathPattern;

/**
 * How the servlet filter runs a covered request's handler in a Spring application: inside an
 * observation named after the route ({@code POST /orders/{id}/confirm}), and, on the routes
 * configured as transactional, in the JDBC transactional mode: the handler runs in a Spring
 * transaction on the shared {@code DataSource} that also completes the idempotency record, so
 * the business writes and the stored response commit together or not at all. A process that dies
 * mid-handler then leaves nothing behind but a claim whose lease lapses; the retry runs the
 * handler once more, with no first effect to duplicate. Thread-safe.
 */
public final class SpringHandlerExecution implements HandlerExecution {
    private final IdempotencyEngine engine;
    private final ObjectProvider<TransactionalExecutor> transactional;
    private final ObjectProvider<CallObserver> observer;
    private final boolean allTransactional;
    private final List<PathPattern> transactionalRoutes;

    /**
     * Creates the execution.
     *
     * @param engine the engine
     * @param transactional the JDBC transactional mode, when available
     * @param observer what observes each call, when available
     * @param allTransactional whether every covered route runs in the transactional mode
     * @param transactionalRoutes the routes that run in it otherwise
     */
    public SpringHandlerExecution(IdempotencyEngine engine, ObjectProvider<TransactionalExecutor> transactional,
            ObjectProvider<CallObserver> observer, boolean allTransactional, List<PathPattern> transactionalRoutes) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.transactional = Objects.requireNonNull(transactional, "transactional");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.allTransactional = allTransactional;
        this.transactionalRoutes = List.copyOf(transactionalRoutes);
    }

    @Override
    public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
        boolean inTransaction = allTransactional || (!transactionalRoutes.isEmpty() && call.request()
                .unwrap(HttpServletRequest.class).map(r -> SpringRoutes.matches(transactionalRoutes, r)).orElse(false));
        return observer.getIfAvailable(() -> CallObserver.NONE).observe(call.operationName(), call.key(), () -> {
            if (!inTransaction) {
                return engine.execute(call.key(), call.fingerprint(), type, call.options(), work);
            }
            TransactionalExecutor executor = transactional.getIfAvailable();
            if (executor == null) {
                throw new IllegalStateException("the route " + call.operationName() + " is configured to run in "
                        + "the transactional mode, which needs idem-store-jdbc and spring-jdbc on the class path");
            }
            return executor.execute(call.key(), call.fingerprint(), new TypeReference<T>() {
                @Override
                public Type getType() {
                    return type;
                }
            }, call.options(), work);
        });
    }
}
