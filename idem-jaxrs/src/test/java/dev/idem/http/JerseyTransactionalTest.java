package dev.idem.http;

import dev.idem.http.jdbc.TransactionalContext;
import dev.idem.jaxrs.IdempotencyFeature;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transactional contract on idem-jaxrs's filters (Jersey 3.1 on Grizzly) over H2: the
 * resource writes on the handle of the {@link TransactionalContext} in its request property;
 * crashes are in-process ({@link InProcessCrash}).
 */
class JerseyTransactionalTest extends AbstractTransactionalHttpContract {
    private static InProcessCrash crash;
    private static HttpServer server;
    private static Http http;
    private static Jdbi jdbi;

    @BeforeAll
    static void start() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:jersey-tx;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        TransactionalApp.createTables(ds);
        jdbi = Jdbi.create(ds);
        crash = new InProcessCrash(ds);
        server = new HttpServer();
        NetworkListener listener = new NetworkListener("idem-tx", "127.0.0.1", 0);
        server.addListener(listener);
        ResourceConfig app = new ResourceConfig(Charges.class)
                .register(new IdempotencyFeature(TransactionalApp.config(crash.engine(), crash.execution)))
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        server.getServerConfiguration().addHttpHandler(ContainerFactory.createContainer(GrizzlyHttpContainer.class,
                app), "/tx");
        server.start();
        http = new Http("http://127.0.0.1:" + listener.getPort());
    }

    @AfterAll
    static void stop() {
        crash.close();
        server.shutdownNow();
    }

    /** The application's resource. */
    @Path("/charges")
    public static final class Charges {
        @POST
        public Response charge(String body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.CRASH) String crashAt,
                @HeaderParam(TransactionalApp.FAIL) String fail) {
            Object attribute = request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
            TransactionalApp.Reply reply = TransactionalApp.handle(attribute, TransactionalContext.of(attribute).handle(),
                    key, Optional.ofNullable(crashAt), Optional.ofNullable(fail), crash);
            return Response.status(reply.status()).type(reply.contentType()).entity(reply.body()).build();
        }
    }

    @Override
    Http http() {
        return http;
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(jdbi, key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        crash.awaitCrashAndRestart();
    }
}
