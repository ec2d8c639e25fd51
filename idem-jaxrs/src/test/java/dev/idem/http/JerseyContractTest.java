package dev.idem.http;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.jaxrs.IdempotencyFeature;
import jakarta.annotation.Priority;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.OPTIONS;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.net.URI;
import java.security.Principal;
import java.util.Map;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The servlet filter's HTTP contract, unchanged, against idem-jaxrs's filters on Jersey 3.1 in an
 * embedded Grizzly server: one Jersey application per path prefix, each with its
 * {@link IdempotencyFeature}, behind a filter that puts the {@code X-User} header in the
 * {@code SecurityContext}. The handler is a resource method; what it throws reaches the engine
 * through {@link dev.idem.jaxrs.IdempotencyExceptionMapper}.
 */
class JerseyContractTest extends AbstractHttpContract {
    static final TestHandler HANDLER = new TestHandler();
    private static final SwitchableStore STORE = newStore();
    private static HttpServer server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        IdempotencyEngine engine = engine(STORE);
        server = new HttpServer();
        NetworkListener listener = new NetworkListener("idem", "127.0.0.1", 0);
        server.addListener(listener);
        Map<String, ResourceConfig> apps = Map.of(
                "/api", app(config(engine), true),
                "/anon", app(config(engine), false),
                "/custom", app(storeAllConfig(engine), true),
                "/final", app(config(finalFailureEngine(STORE)), true));
        apps.forEach((prefix, app) -> server.getServerConfiguration().addHttpHandler(
                ContainerFactory.createContainer(GrizzlyHttpContainer.class, app), prefix));
        server.start();
        http = new Http("http://127.0.0.1:" + listener.getPort());
    }

    @AfterAll
    static void stop() {
        server.shutdownNow();
    }

    private static ResourceConfig app(HttpIdempotency config, boolean authenticated) {
        ResourceConfig app = new ResourceConfig(Resource.class).register(new IdempotencyFeature(config))
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        return authenticated ? app.register(Authentication.class) : app;
    }

    /** Stands in for the runtime's security: the X-User header becomes the SecurityContext's principal. */
    @Priority(Priorities.AUTHENTICATION)
    public static final class Authentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user == null) {
                return;
            }
            Principal principal = () -> user;
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return false;
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "X-User";
                }
            });
        }
    }

    /** The application: every path of the prefix, every method, answered by {@link TestHandler}. */
    @Path("{name: .*}")
    public static final class Resource {
        @Context
        private ContainerRequestContext request;

        @PathParam("name")
        private String name;

        @POST
        public Response post(byte[] body) throws Exception {
            return handle(body);
        }

        @PATCH
        public Response patch(byte[] body) throws Exception {
            return handle(body);
        }

        @PUT
        public Response put(byte[] body) throws Exception {
            return handle(body);
        }

        @DELETE
        public Response delete() throws Exception {
            return handle(new byte[0]);
        }

        @GET
        public Response get() throws Exception {
            return handle(new byte[0]);
        }

        @HEAD
        public Response head() throws Exception {
            return handle(new byte[0]);
        }

        @OPTIONS
        public Response options() throws Exception {
            return handle(new byte[0]);
        }

        private Response handle(byte[] body) throws Exception {
            URI base = request.getUriInfo().getBaseUri();
            String route = base.getPath() + name;
            TestHandler.Reply reply = HANDLER.handle(request.getMethod(), route,
                    String.valueOf(request.getHeaderString("Idempotency-Key")), body,
                    request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE));
            Response.ResponseBuilder b = Response.status(reply.status());
            if (reply.contentType() != null) {
                b.type(reply.contentType());
            }
            reply.headers().forEach(b::header);
            if (reply.body().length > 0 && !request.getMethod().equals("HEAD")) {
                b.entity(reply.body());
            }
            return b.build();
        }
    }

    @Override
    Http http() {
        return http;
    }

    @Override
    TestHandler handler() {
        return HANDLER;
    }

    @Override
    SwitchableStore store() {
        return STORE;
    }
}
