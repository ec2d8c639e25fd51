package dev.idem.http;

import dev.idem.http.jdbc.TransactionalContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transactional contract on the servlet filter (Jetty 12) over H2: the servlet writes on the
 * handle of {@link TransactionalContext}; crashes are in-process ({@link InProcessCrash}).
 */
class ServletTransactionalTest extends AbstractTransactionalHttpContract {
    private static InProcessCrash crash;
    private static Server server;
    private static Http http;
    private static Jdbi jdbi;

    @BeforeAll
    static void start() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:servlet-tx;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        DataSource dataSource = ds;
        TransactionalApp.createTables(dataSource);
        jdbi = Jdbi.create(dataSource);
        crash = new InProcessCrash(dataSource);
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addFilter(new FilterHolder(new IdempotencyServletFilter(
                TransactionalApp.config(crash.engine(), crash.execution))), "/tx/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                Object attribute = req.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
                TransactionalApp.Reply reply = TransactionalApp.handle(attribute,
                        TransactionalContext.of(attribute).handle(), req.getHeader("Idempotency-Key"),
                        Optional.ofNullable(req.getHeader(TransactionalApp.CRASH)),
                        Optional.ofNullable(req.getHeader(TransactionalApp.FAIL)), crash);
                resp.setStatus(reply.status());
                resp.setContentType(reply.contentType());
                resp.getOutputStream().write(reply.body());
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        http = new Http("http://127.0.0.1:" + connector.getLocalPort());
    }

    @AfterAll
    static void stop() throws Exception {
        crash.close();
        server.stop();
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
