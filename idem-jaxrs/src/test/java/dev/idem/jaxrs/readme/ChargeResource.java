package dev.idem.jaxrs.readme;

import static dev.idem.jaxrs.readme.Payments.payments;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.HttpIdempotency;
import dev.idem.jaxrs.Idempotent;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

// The README's resource, as printed (readme-tests checks the README against the region).
// tag::resource[]
@Path("/charges")
public class ChargeResource {
    @POST
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Charge create(ChargeRequest request, @Context ContainerRequestContext context) {
        ExecutionContext ctx = (ExecutionContext) context.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
        return payments.charge(request, ctx.downstreamKey());
    }
}
// end::resource[]
