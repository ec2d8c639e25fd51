package dev.idem.http;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.jdbc.TransactionalContext;
import dev.idem.jaxrs.Idempotent;
import dev.idem.quarkus.jta.JtaHandlerExecution;
import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.properties.IfBuildProperty;
import io.quarkus.arc.properties.UnlessBuildProperty;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The transactional contract's application in the JTA mode ({@link JtaHandlerExecution}) on
 * Quarkus REST over PostgreSQL, twice: {@code jta} ({@code /jta/charges}), whose resource writes on
 * the handle of its {@link TransactionalContext}, and {@code jta-bean} ({@code /jta/bookings}),
 * whose resource books through {@link Bookkeeper}, a {@code @Transactional} CDI bean writing
 * through the injected {@code AgroalDataSource}, as an application does without knowing idem. Both
 * configurations crash in process ({@link InProcessCrash}) and restart over the application's
 * datasource and transaction manager.
 */
final class QuarkusJtaApp {
    /** The crashes of each configuration, shared with the tests (one class loader in @QuarkusTest). */
    static volatile InProcessCrash handleCrash;
    static volatile InProcessCrash beanCrash;
    /** The application's datasource, for the tests' counts. */
    static volatile DataSource dataSource;

    private QuarkusJtaApp() {
    }

    /**
     * The two configurations, in every profile (startup wants a bean for every {@code @Idempotent}
     * name), built only when asked for.
     */
    @Singleton
    static class Configurations {
        @Produces
        @Singleton
        @Identifier("jta")
        HttpIdempotency handle(Instance<DataSource> dataSources, TransactionManager transactions) {
            handleCrash = crashes(dataSources.get(), transactions);
            return TransactionalApp.config(handleCrash.engine(), handleCrash.execution);
        }

        @Produces
        @Singleton
        @Identifier("jta-bean")
        HttpIdempotency bean(Instance<DataSource> dataSources, TransactionManager transactions) {
            beanCrash = crashes(dataSources.get(), transactions);
            return TransactionalApp.config(beanCrash.engine(), beanCrash.execution);
        }

        private static InProcessCrash crashes(DataSource applicationDataSource, TransactionManager transactions) {
            TransactionalApp.createTables(applicationDataSource);
            dataSource = applicationDataSource;
            return new InProcessCrash(applicationDataSource,
                    (engine, store) -> JtaHandlerExecution.of(engine, store, transactions));
        }
    }

    /** The resource that writes on its transaction's handle. */
    @Path("/jta/charges")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Charges {
        @POST
        @Idempotent("jta")
        public Response charge(byte[] body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.CRASH) String crashAt,
                @HeaderParam(TransactionalApp.FAIL) String fail) {
            Object attribute = request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
            TransactionalApp.Reply reply = TransactionalApp.handle(attribute, TransactionalContext.of(attribute).handle(),
                    key, Optional.ofNullable(crashAt), Optional.ofNullable(fail), handleCrash);
            return Response.status(reply.status()).type(reply.contentType()).entity(reply.body()).build();
        }
    }

    /** The resource that books through a {@code @Transactional} bean, never touching idem's handle. */
    @Path("/jta/bookings")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "blocking")
    public static class Bookings {
        @Inject
        Bookkeeper bookkeeper;
        @Inject
        AgroalDataSource applicationDataSource;

        @POST
        @Idempotent("jta-bean")
        public Response book(byte[] body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.CRASH) String crashAt,
                @HeaderParam(TransactionalApp.FAIL) String fail) {
            TransactionalApp.Reply reply = TransactionalApp.handle(
                    request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE), new TransactionalApp.Ledger() {
                        @Override
                        public void book(String id, String idemKey, int attempt) {
                            bookkeeper.book(id, idemKey, attempt);
                        }

                        @Override
                        public Connection connection() {
                            // In the request's transaction: the connection the bookkeeper wrote on.
                            try {
                                return applicationDataSource.getConnection();
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    }, key, Optional.ofNullable(crashAt), Optional.ofNullable(fail), beanCrash);
            return Response.status(reply.status()).type(reply.contentType()).entity(reply.body()).build();
        }
    }

    /**
     * The extension's own mode ({@code idem.http.transactional=true}, {@link QuarkusJtaModeTest}):
     * the default configuration, a resource that books through {@link Bookkeeper}, and fails as its
     * {@code X-Fail} header says: {@code transient} throws after booking, {@code rollback-only}
     * books through a method that throws (marking the transaction for rollback) and answers 201 all
     * the same, {@code at-commit} answers 201 over a transaction whose commit fails, {@code unjoined}
     * answers 201 as a method the extension's interceptor never reached.
     */
    @Path("/mode/charges")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "jta-mode")
    public static class ModeCharges {
        @Inject
        Bookkeeper bookkeeper;
        @Inject
        FailingBookkeeper failing;
        @Inject
        TransactionSynchronizationRegistry synchronizations;

        @POST
        @Idempotent
        public Response charge(byte[] body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.FAIL) String fail) {
            ExecutionContext context = (ExecutionContext) request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
            String id = "ch_" + java.util.UUID.randomUUID();
            if ("rollback-only".equals(fail)) {
                try {
                    failing.bookAndFail(id, key, context.attempt());
                } catch (IllegalStateException e) {
                    return Response.status(201).type("application/json").entity("{\"id\":\"" + id + "\"}").build();
                }
            }
            bookkeeper.book(id, key, context.attempt());
            if ("unjoined".equals(fail)) {
                // As if the extension's interceptor had never reached this method.
                request.removeProperty(JtaHandlerExecution.JOINED_PROPERTY);
            }
            if ("transient".equals(fail)) {
                throw new IllegalStateException("the handler failed after its write");
            }
            if ("at-commit".equals(fail)) {
                // Runs at the commit, after the response was written in the transaction.
                synchronizations.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        throw new IllegalStateException("the commit failed");
                    }

                    @Override
                    public void afterCompletion(int status) {
                    }
                });
            }
            return Response.status(201).type("application/json")
                    .entity("{\"id\":\"" + id + "\",\"attempt\":" + context.attempt() + "}").build();
        }
    }

    /** The application's own transactional service: plain JDBC on its datasource, in a JTA transaction. */
    @UnlessBuildProperty(name = "contract.endpoints", stringValue = "reactive")   // no datasource there
    // tag::bookkeeper[]
    @ApplicationScoped
    public static class Bookkeeper {
        @Inject
        AgroalDataSource dataSource;                   // the store's datasource (idem.store.jdbc.datasource)

        @Transactional                                 // REQUIRED: joins the request's transaction
        public void book(String id, String key, int attempt) {
            try (Connection c = dataSource.getConnection();
                    PreparedStatement insert = c.prepareStatement(
                            "insert into tx_charge (id, idem_key, attempt) values (?, ?, ?)")) {
                insert.setString(1, id);
                insert.setString(2, key);
                insert.setInt(3, attempt);
                insert.executeUpdate();                // commits with the stored response, or not at all
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
    // end::bookkeeper[]

    /** A service whose method books, then fails: its transaction (the caller's, if it has one) can only roll back. */
    @UnlessBuildProperty(name = "contract.endpoints", stringValue = "reactive")
    @ApplicationScoped
    public static class FailingBookkeeper {
        @Inject
        Bookkeeper bookkeeper;

        /**
         * Books one row, then fails.
         *
         * @param id the row's id
         * @param key the Idempotency-Key it was booked for
         * @param attempt the execution's attempt
         * @throws IllegalStateException always, after the row
         */
        @Transactional
        public void bookAndFail(String id, String key, int attempt) {
            bookkeeper.book(id, key, attempt);
            throw new IllegalStateException("the booking failed after its write");
        }
    }
}
