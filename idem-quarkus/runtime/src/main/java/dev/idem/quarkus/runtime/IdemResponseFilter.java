package dev.idem.quarkus.runtime;

import dev.idem.jaxrs.JaxrsIdempotency;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * The response phase on Quarkus REST: hands the covered handler's response (or what it threw, as
 * {@link IdemExceptionMapper} reported it) to the engine, with the request suspended until
 * the outcome is stored, then resumes it with the flow's answer in the response. Registered not
 * cancellable, so it runs even when the client has gone: the key is never left claimed by a
 * handler that finished. Wired by the extension; not for applications.
 */
@Singleton
public class IdemResponseFilter implements ContainerResponseFilter {
    private final IdemRest rest;

    /**
     * Created by CDI.
     *
     * @param rest the configurations
     */
    @Inject
    public IdemResponseFilter(IdemRest rest) {
        this.rest = rest;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        ResteasyReactiveContainerRequestContext rr = (ResteasyReactiveContainerRequestContext) request;
        ResteasyReactiveRequestContext context = RestBodyReader.context(request);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (JaxrsIdempotency core : rest.cores()) {
            CompletableFuture<Void> done = core.filterResponse(request, response, context.getProviders(), null)
                    .toCompletableFuture();
            if (!done.isDone() || done.isCompletedExceptionally()) {
                pending.add(done);
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
        rr.suspend();
        all.whenComplete((v, e) -> {
            if (e != null) {
                rr.resume(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            } else {
                rr.resume();
            }
        });
    }
}
