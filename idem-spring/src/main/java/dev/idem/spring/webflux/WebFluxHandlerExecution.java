package dev.idem.spring.webflux;

import dev.idem.engine.AsyncWork;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import dev.idem.spring.CallObserver;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.ObjectProvider;

/**
 * How {@link IdempotencyWebFilter} runs a covered request's handler in a Spring application: the
 * engine's asynchronous call inside an observation named after the route WebFlux matched
 * ({@code POST /orders/{id}/confirm}, never the raw path), so metrics and spans of covered
 * requests are bounded as on the servlet side. Loads no servlet class. Thread-safe.
 */
public final class WebFluxHandlerExecution implements HandlerExecution {
    private final IdempotencyEngine engine;
    private final ObjectProvider<CallObserver> observer;

    /**
     * Creates the execution.
     *
     * @param engine the engine
     * @param observer what observes each call, when available
     */
    public WebFluxHandlerExecution(IdempotencyEngine engine, ObjectProvider<CallObserver> observer) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    @Override
    public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
        return observer().observe(call.operationName(), call.key(),
                () -> engine.execute(call.key(), call.fingerprint(), type, call.options(), work));
    }

    @Override
    public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type, AsyncWork<? extends T> work) {
        return observer().observeAsync(call.operationName(), call.key(),
                () -> engine.executeAsync(call.key(), call.fingerprint(), type, call.options(), work));
    }

    private CallObserver observer() {
        return observer.getIfAvailable(() -> CallObserver.NONE);
    }
}
