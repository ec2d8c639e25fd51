package dev.idem.quarkus.runtime;

import dev.idem.jaxrs.JaxrsIdempotency;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * The request phase on Quarkus REST: decided at once when no store call is needed (the request is
 * not covered), else the request is suspended (no thread waits, event loop or worker) until the
 * key is claimed, and then resumed on its own thread, or aborted with the flow's answer. Wired by
 * the extension at {@code IdempotencyFilter.PRIORITY}; not for applications.
 */
@Singleton
public class IdemRequestFilter implements ContainerRequestFilter {
    private final IdemRest rest;

    /**
     * Created by CDI.
     *
     * @param rest the configurations
     */
    @Inject
    public IdemRequestFilter(IdemRest rest) {
        this.rest = rest;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        ResteasyReactiveContainerRequestContext rr = (ResteasyReactiveContainerRequestContext) request;
        ResteasyReactiveRequestContext context = RestBodyReader.context(request);
        ResourceInfo resource = context.getTarget() == null ? null : context.getTarget().getLazyMethod();
        Optional<JaxrsIdempotency> core = rest.core(resource);
        if (core.isEmpty()) {
            return;
        }
        CompletableFuture<Optional<Response>> decision = core.get().filterRequest(request, resource).toCompletableFuture();
        if (decision.isDone()) {
            decision.join().ifPresent(request::abortWith);
            return;
        }
        rr.suspend();
        decision.whenComplete((answer, e) -> {
            if (e != null) {
                rr.resume(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            } else if (answer.isPresent()) {
                // Resumes the suspended request on the abort chain.
                request.abortWith(answer.get());
            } else {
                rr.resume();
            }
        });
    }
}
