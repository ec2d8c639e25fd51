package dev.idem.http;

import dev.idem.jaxrs.Idempotent;
import io.quarkus.arc.properties.IfBuildProperty;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.OPTIONS;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;

/**
 * The contract's resources as blocking endpoints: Quarkus REST runs them, and idem's filters, on
 * worker threads. Active with {@code contract.endpoints=blocking}.
 */
public final class BlockingResources {
    private BlockingResources() {
    }

    @Path("/api")
    @Idempotent
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Api {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public Response post(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/api", name, body).run();
        }

        @PATCH
        @Path("{name: .*}")
        public Response patch(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/api", name, body).run();
        }

        @PUT
        @Path("{name: .*}")
        public Response put(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/api", name, body).run();
        }

        @DELETE
        @Path("{name: .*}")
        public Response delete(@PathParam("name") String name) {
            return ContractResources.call(request, "/api", name, null).run();
        }

        @GET
        @Path("{name: .*}")
        public Response get(@PathParam("name") String name) {
            return ContractResources.call(request, "/api", name, null).run();
        }

        @HEAD
        @Path("{name: .*}")
        public Response head(@PathParam("name") String name) {
            return ContractResources.call(request, "/api", name, null).run();
        }

        @OPTIONS
        @Path("{name: .*}")
        public Response options(@PathParam("name") String name) {
            return ContractResources.call(request, "/api", name, null).run();
        }
    }

    @Path("/anon")
    @Idempotent
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Anon {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public Response post(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/anon", name, body).run();
        }

        @PATCH
        @Path("{name: .*}")
        public Response patch(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/anon", name, body).run();
        }

        @PUT
        @Path("{name: .*}")
        public Response put(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/anon", name, body).run();
        }

        @DELETE
        @Path("{name: .*}")
        public Response delete(@PathParam("name") String name) {
            return ContractResources.call(request, "/anon", name, null).run();
        }

        @GET
        @Path("{name: .*}")
        public Response get(@PathParam("name") String name) {
            return ContractResources.call(request, "/anon", name, null).run();
        }

        @HEAD
        @Path("{name: .*}")
        public Response head(@PathParam("name") String name) {
            return ContractResources.call(request, "/anon", name, null).run();
        }

        @OPTIONS
        @Path("{name: .*}")
        public Response options(@PathParam("name") String name) {
            return ContractResources.call(request, "/anon", name, null).run();
        }
    }

    @Path("/custom")
    @Idempotent("custom")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Custom {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public Response post(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/custom", name, body).run();
        }

        @PATCH
        @Path("{name: .*}")
        public Response patch(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/custom", name, body).run();
        }

        @PUT
        @Path("{name: .*}")
        public Response put(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/custom", name, body).run();
        }

        @DELETE
        @Path("{name: .*}")
        public Response delete(@PathParam("name") String name) {
            return ContractResources.call(request, "/custom", name, null).run();
        }

        @GET
        @Path("{name: .*}")
        public Response get(@PathParam("name") String name) {
            return ContractResources.call(request, "/custom", name, null).run();
        }

        @HEAD
        @Path("{name: .*}")
        public Response head(@PathParam("name") String name) {
            return ContractResources.call(request, "/custom", name, null).run();
        }

        @OPTIONS
        @Path("{name: .*}")
        public Response options(@PathParam("name") String name) {
            return ContractResources.call(request, "/custom", name, null).run();
        }
    }

    @Path("/final")
    @Idempotent("final")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Final {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public Response post(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/final", name, body).run();
        }

        @PATCH
        @Path("{name: .*}")
        public Response patch(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/final", name, body).run();
        }

        @PUT
        @Path("{name: .*}")
        public Response put(@PathParam("name") String name, byte[] body) {
            return ContractResources.call(request, "/final", name, body).run();
        }

        @DELETE
        @Path("{name: .*}")
        public Response delete(@PathParam("name") String name) {
            return ContractResources.call(request, "/final", name, null).run();
        }

        @GET
        @Path("{name: .*}")
        public Response get(@PathParam("name") String name) {
            return ContractResources.call(request, "/final", name, null).run();
        }

        @HEAD
        @Path("{name: .*}")
        public Response head(@PathParam("name") String name) {
            return ContractResources.call(request, "/final", name, null).run();
        }

        @OPTIONS
        @Path("{name: .*}")
        public Response options(@PathParam("name") String name) {
            return ContractResources.call(request, "/final", name, null).run();
        }
    }
}
