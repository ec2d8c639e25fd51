package dev.idem.jaxrs;

import dev.idem.jaxrs.internal.HandlerFailure;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * Lets the engine see what a covered handler threw. Jakarta REST gives response filters the
 * mapped response, never the exception, so without this mapper an exception would reach the
 * engine as the runtime's bare 500. It maps only what no other mapper takes (its priority is
 * below the application's mappers'): a {@link WebApplicationException} to its own response (the
 * handler's answer, as Jakarta REST's default does), anything else to a 500 that carries the
 * exception to {@link IdempotencyFilter}'s response filter. There, for a covered request, the
 * exception goes to the engine and the client gets the flow's problem (500
 * {@code handler-failed} with the key released, or the engine's final failure); for any other
 * request, a bare 500 and a WARNING log line, as the runtime's default gives. Register it with
 * the filter ({@link IdempotencyFeature} does). An application with its own
 * {@code ExceptionMapper<Throwable>} calls {@link JaxrsIdempotency#handlerFailed} from it instead.
 */
@Priority(Priorities.USER + 1000)
public final class IdempotencyExceptionMapper implements ExceptionMapper<Throwable> {
    /** A mapper. */
    public IdempotencyExceptionMapper() {
    }

    @Override
    public Response toResponse(Throwable exception) {
        if (exception instanceof WebApplicationException w && w.getResponse() != null) {
            return w.getResponse();
        }
        return Response.serverError().entity(new HandlerFailure(exception)).build();
    }
}
