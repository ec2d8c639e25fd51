package dev.idem.quarkus.runtime;

import dev.idem.jaxrs.JaxrsIdempotency;
import jakarta.inject.Singleton;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveExceptionMapper;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

/**
 * Lets the engine see what a covered handler threw. Quarkus sends an exception no mapper takes
 * straight to its HTTP error handler, past every response filter, which would leave the key
 * claimed until the engine gave up on it; so this mapper, below every application mapper, takes
 * them. For a covered request whose handler runs, it reports the exception
 * ({@link JaxrsIdempotency#handlerFailed}) and idem's response filter answers with the flow's
 * problem; a {@link WebApplicationException} is the handler's answer, as Quarkus REST's own
 * default; anything else is thrown on, so Quarkus answers it as it would without idem. Wired by
 * the extension; not for applications.
 */
@Singleton
public class IdemExceptionMapper implements ResteasyReactiveExceptionMapper<Throwable> {
    /** Created by CDI. */
    public IdemExceptionMapper() {
    }

    @Override
    public Response toResponse(Throwable exception, ServerRequestContext context) {
        if (exception instanceof WebApplicationException w) {
            return w.getResponse();
        }
        if (context instanceof ResteasyReactiveRequestContext rc
                && JaxrsIdempotency.handlerFailed(rc.getContainerRequestContext(), exception)) {
            // Replaced by idem's response filter with the flow's answer.
            return Response.serverError().build();
        }
        throw IdemExceptionMapper.<RuntimeException>rethrow(exception);
    }

    @Override
    public Response toResponse(Throwable exception) {
        throw new IllegalStateException("called without the request context", exception);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable e) throws E {
        throw (E) e;
    }
}
