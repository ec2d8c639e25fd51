package dev.idem.quarkus.runtime;

import dev.idem.jaxrs.JaxrsIdempotency;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.core.ServerSerialisers;
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
        if (context.getResponse() == null) {
            // The client went and Quarkus REST dropped the response before this filter ran (seen
            // under load): reported to the flow as a dropped response (IdempotencyFlow.ResponseDropped),
            // whose decision is every adapter's: the key stays claimed until its lease lapses.
            for (JaxrsIdempotency core : rest.cores()) {
                core.abandon(request);
            }
            return;
        }
        if (response.hasEntity() && response.getMediaType() == null && JaxrsIdempotency.handlerRunning(request)) {
            // Quarkus REST picks the media type only when it writes; idem writes the entity first, so it
            // asks for the same choice here, and the first response and its replays carry that type.
            MediaType chosen = chosenMediaType(context, response.getEntity());
            if (chosen != null) {
                response.getHeaders().putSingle(HttpHeaders.CONTENT_TYPE, chosen.toString());
            }
        }
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

    /** The media type Quarkus REST would write {@code entity} as (its DynamicEntityWriter's choice). */
    private static MediaType chosenMediaType(ResteasyReactiveRequestContext context, Object entity) {
        MediaType negotiated = context.getResponseMediaType();
        if (negotiated != null) {
            return negotiated;
        }
        ServerSerialisers serialisers = context.getDeployment().getSerialisers();
        String accept = context.serverRequest().getRequestHeader(HttpHeaders.ACCEPT);
        if (accept != null && !MediaType.WILDCARD.equals(accept)) {
            ServerSerialisers.BestMatchingServerWriterResult best = serialisers.findBestMatchingServerWriter(null,
                    entity.getClass(), context.serverRequest());
            if (!best.isEmpty()) {
                return best.getSelectedMediaType();
            }
        }
        return serialisers.findWriterNoMediaType(context, entity, serialisers, RuntimeType.SERVER).getMediaType();
    }
}
