package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract in an embedded servlet container (Jetty 12, Servlet 6) with
 * {@link IdempotencyServletFilter} mapped after an authentication filter.
 */
class ServletFilterTest extends AbstractHttpContract {
    private static final TestHandler HANDLER = new TestHandler();
    private static final SwitchableStore STORE = newStore();
    private static Server server;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        IdempotencyEngine engine = engine(STORE);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        EnumSet<DispatcherType> request = EnumSet.of(DispatcherType.REQUEST);
        context.addFilter(new FilterHolder(authentication()), "/*", request);
        context.addFilter(new FilterHolder(new IdempotencyServletFilter(config(engine))), "/api/*", request);
        context.addFilter(new FilterHolder(new IdempotencyServletFilter(config(engine))), "/anon/*", request);
        context.addFilter(new FilterHolder(new IdempotencyServletFilter(storeAllConfig(engine))), "/custom/*",
                request);
        context.addFilter(new FilterHolder(new IdempotencyServletFilter(config(finalFailureEngine(STORE)))),
                "/final/*", request);
        context.addServlet(new ServletHolder(new App()), "/*");
        server.setHandler(context);
        server.start();
        http = new Http("http://127.0.0.1:" + connector.getLocalPort());
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
    }

    /** Stands in for container security: the X-User header becomes the user principal. */
    private static Filter authentication() {
        return (req, res, chain) -> {
            HttpServletRequest http = (HttpServletRequest) req;
            String user = http.getHeader("X-User");
            if (user == null) {
                chain.doFilter(req, res);
                return;
            }
            Principal principal = () -> user;
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }
            }, res);
        };
    }

    private static final class App extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String uri = req.getRequestURI();
            if (uri.endsWith("/writer")) {
                int n = HANDLER.executions.computeIfAbsent(uri, k -> new AtomicInteger()).incrementAndGet();
                resp.setStatus(201);
                resp.setContentType("application/json");
                resp.setCharacterEncoding("UTF-8");
                resp.getWriter().print("{\"text\":\"gr\u00fc\u00df dich \u20ac\",\"n\":" + n + ",\"body\":"
                        + req.getReader().readLine() + "}");
                return;
            }
            if (uri.endsWith("/send-error")) {
                HANDLER.executions.computeIfAbsent(uri, k -> new AtomicInteger()).incrementAndGet();
                resp.sendError(404, "no such charge");
                return;
            }
            byte[] body = req.getInputStream().readAllBytes();
            TestHandler.Reply reply;
            try {
                reply = HANDLER.handle(req.getMethod(), req.getRequestURI(),
                        String.valueOf(req.getHeader("Idempotency-Key")), body,
                        req.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            resp.setStatus(reply.status());
            if (reply.contentType() != null) {
                resp.setContentType(reply.contentType());
            }
            reply.headers().forEach(resp::setHeader);
            if (reply.body().length > 0 && !req.getMethod().equals("HEAD")) {
                resp.getOutputStream().write(reply.body());
            }
        }
    }

    @Test
    void aResponseWrittenThroughTheWriterIsReplayedByteForByte() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http.post("/api/writer", "{\"x\":1}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http.post("/api/writer", "{\"x\":1}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(201);
        assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo(
                "{\"text\":\"gr\u00fc\u00df dich \u20ac\",\"n\":1,\"body\":{\"x\":1}}");
        assertThat(a.headers().firstValue("Content-Type")).hasValueSatisfying(v ->
                assertThat(v.replace(" ", "").toLowerCase(java.util.Locale.ROOT))
                        .isEqualTo("application/json;charset=utf-8"));
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(b.headers().firstValue("Content-Type")).isEqualTo(a.headers().firstValue("Content-Type"));
        assertThat(HANDLER.executions.get("/api/writer").get()).isEqualTo(1);
    }

    @Test
    void sendErrorIsCapturedAndStoredWhenThePolicySaysSo() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http.post("/api/send-error", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http.post("/api/send-error", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(404);
        assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo("no such charge");
        assertThat(b.statusCode()).isEqualTo(404);
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(b.body()).isEqualTo(a.body());
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
