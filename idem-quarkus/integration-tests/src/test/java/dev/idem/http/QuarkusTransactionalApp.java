package dev.idem.http;

import dev.idem.http.jdbc.TransactionalContext;
import dev.idem.jaxrs.Idempotent;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The transactional contract's application on Quarkus REST (blocking endpoints, the PostgreSQL
 * profile): the {@code tx} configuration runs handlers through idem-http's
 * {@code JdbcHandlerExecution} over the application's Agroal datasource, with in-process crashes
 * ({@link InProcessCrash}); the resource writes through the request's transaction.
 */
final class QuarkusTransactionalApp {
    /** The crashes of the running application, shared with the test (one class loader in @QuarkusTest). */
    static volatile InProcessCrash crash;
    /** The application's datasource, for the test's counts. */
    static volatile DataSource dataSource;

    private QuarkusTransactionalApp() {
    }

    /**
     * The {@code tx} configuration, in every profile (startup wants a bean for every
     * {@code @Idempotent} name), built only when asked for, so the datasource is looked up only
     * in the profiles that have one.
     */
    @Singleton
    static class Configuration {
        @Produces
        @Singleton
        @Identifier("tx")
        HttpIdempotency transactional(Instance<DataSource> dataSources) {
            DataSource applicationDataSource = dataSources.get();
            TransactionalApp.createTables(applicationDataSource);
            dataSource = applicationDataSource;
            crash = new InProcessCrash(applicationDataSource);
            return TransactionalApp.config(crash.engine(), crash.execution);
        }
    }

    /** The application's resource. */
    @Path("/tx/charges")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Charges {
        @POST
        @Idempotent("tx")
        public Response charge(byte[] body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.CRASH) String crashAt,
                @HeaderParam(TransactionalApp.FAIL) String fail) {
            Object attribute = request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
            TransactionalApp.Reply reply = TransactionalApp.handle(attribute, TransactionalContext.of(attribute).handle(),
                    key, Optional.ofNullable(crashAt), Optional.ofNullable(fail), crash);
            return Response.status(reply.status()).type(reply.contentType()).entity(reply.body()).build();
        }
    }
}
