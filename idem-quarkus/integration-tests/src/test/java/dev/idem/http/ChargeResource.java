package dev.idem.http;

import dev.idem.jaxrs.Idempotent;
import io.quarkus.arc.properties.IfBuildProperty;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The idem-quarkus README's resource, as written there: a charge per call, each counted, so the
 * test sees a retry replayed rather than charged again. Active with {@code contract.endpoints=readme}
 * ({@link QuarkusReadmeTest}).
 */
@IfBuildProperty(name = "contract.endpoints", stringValue = "readme")
// tag::resource[]
@Path("/charges")
public class ChargeResource {
    static final AtomicInteger CHARGES = new AtomicInteger();

    @POST
    @Idempotent                                        // dev.idem.jaxrs.Idempotent
    @Consumes(MediaType.APPLICATION_JSON)
    public Response charge(String request) {
        String id = "ch_" + CHARGES.incrementAndGet();  // the effect: runs once per key
        return Response.status(201).type(MediaType.APPLICATION_JSON)
                .entity("{\"id\":\"" + id + "\"}").build();
    }
}
// end::resource[]
