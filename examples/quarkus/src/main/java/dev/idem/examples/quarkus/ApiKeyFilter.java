package dev.idem.examples.quarkus;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Checks {@code X-Api-Key} against {@code payments.api-keys} before anything else runs: idem
 * scopes records by that header ({@code idem.http.principal-header}), and a header principal is
 * only as good as whatever checks it. Health and metrics stay open.
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class ApiKeyFilter implements ContainerRequestFilter {
    @ConfigProperty(name = "payments.api-keys")
    List<String> keys;

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getUriInfo().getPath().startsWith("/q/")) {
            return;
        }
        String key = request.getHeaderString("X-Api-Key");
        if (key == null || !keys.contains(key)) {
            request.abortWith(Response.status(401).type(MediaType.TEXT_PLAIN).entity("unknown API key\n").build());
        }
    }
}
