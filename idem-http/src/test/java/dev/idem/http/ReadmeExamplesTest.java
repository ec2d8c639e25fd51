package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.jdbc.JdbcHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.EnumSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's examples, run as printed (readme-tests checks the README against these regions). */
@Timeout(60)
class ReadmeExamplesTest {
    private final IdempotencyStore store = MemoryIdempotencyStore.create();
    private final AtomicInteger charged = new AtomicInteger();

    private IdempotencyEngine engine() {
        return IdempotencyEngine.builder().store(store).build();
    }

    private HttpIdempotency setup() {
        // tag::setup[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)                       // e.g. JdbcIdempotencyStore over your DataSource
                .lease(Duration.ofSeconds(30))      // longer than your slowest handler
                .ttl(Duration.ofHours(24))
                .build();

        HttpIdempotency idempotency = HttpIdempotency.builder(engine)
                .principals(PrincipalResolver.authenticatedUser())    // the default
                .excludeFromFingerprint("/metadata/clientTimestamp")  // optional
                .build();
        // end::setup[]
        return idempotency;
    }

    private String chargeBody() {
        return "{\"id\":\"ch_" + charged.incrementAndGet() + "\",\"card\":{\"number\":\"4242\"}}";
    }

    private static void reply(HttpExchange exchange, String json) throws IOException {
        exchange.getRequestBody().readAllBytes();
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(201, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static final Authenticator API_KEYS = new Authenticator() {
        @Override
        public Result authenticate(HttpExchange exchange) {
            String key = exchange.getRequestHeaders().getFirst("X-Api-Key");
            return key == null ? new Failure(401) : new Success(new HttpPrincipal(key, "api"));
        }
    };

    @Test
    void jdkServerInOneTransaction() throws Exception {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:readme-tx;DB_CLOSE_DELAY=-1");
        org.jdbi.v3.core.Jdbi.create(dataSource).useHandle(h -> h.execute(
                "create table charge (id varchar(64) primary key, body varchar(1000))"));
        JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
        Authenticator apiKeyAuthenticator = API_KEYS;
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        try {
            // tag::transactional[]
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
            IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
            JdbcHandlerExecution transactions = JdbcHandlerExecution.of(engine, store);
            HttpIdempotency idempotency = HttpIdempotency.builder(engine).execution(transactions).build();

            server.createContext("/v1/charges", new IdempotentHttpHandler(idempotency,
                    transactions.handler((exchange, handle) -> {      // handle: this request's transaction
                        String id = "ch_" + UUID.randomUUID();
                        handle.execute("insert into charge (id, body) values (?, ?)", id,
                                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                        byte[] json = ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
                        exchange.sendResponseHeaders(201, json.length);  // stored in that same transaction
                        exchange.getResponseBody().write(json);
                        exchange.close();
                    }))).setAuthenticator(apiKeyAuthenticator);
            // end::transactional[]
            server.start();
            Http http = new Http("http://127.0.0.1:" + server.getAddress().getPort());

            HttpResponse<byte[]> first = http.post("/v1/charges", "{\"amount\":10}", "Idempotency-Key", "k-1",
                    "X-Api-Key", "alice");
            HttpResponse<byte[]> retry = http.post("/v1/charges", "{\"amount\":10}", "Idempotency-Key", "k-1",
                    "X-Api-Key", "alice");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
            assertThat(retry.body()).isEqualTo(first.body());
            int rows = org.jdbi.v3.core.Jdbi.create(dataSource).withHandle(h -> h.createQuery(
                    "select count(*) from charge").mapTo(Integer.class).one());
            assertThat(rows).isEqualTo(1);
            assertThatThrownBy(() -> JdbcHandlerExecution.of(engine(), store))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("engine runs on");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void jdkServer() throws Exception {
        HttpIdempotency idempotency = setup();
        HttpHandler chargesHandler = exchange -> reply(exchange, chargeBody());
        Authenticator apiKeyAuthenticator = API_KEYS;
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        try {
            // tag::jdk[]
            HttpContext charges = server.createContext("/v1/charges", new IdempotentHttpHandler(idempotency, chargesHandler));
            charges.setAuthenticator(apiKeyAuthenticator);
            // end::jdk[]
            server.start();
            Http http = new Http("http://127.0.0.1:" + server.getAddress().getPort());

            HttpResponse<byte[]> first = http.post("/v1/charges", "{\"amount\":10,\"metadata\":{\"clientTimestamp\":1}}",
                    "Idempotency-Key", "k-1", "X-Api-Key", "alice");
            HttpResponse<byte[]> retry = http.post("/v1/charges", "{\"amount\":10,\"metadata\":{\"clientTimestamp\":2}}",
                    "Idempotency-Key", "k-1", "X-Api-Key", "alice");
            HttpResponse<byte[]> otherBody = http.post("/v1/charges", "{\"amount\":11}",
                    "Idempotency-Key", "k-1", "X-Api-Key", "alice");
            HttpResponse<byte[]> otherUser = http.post("/v1/charges", "{\"amount\":11}",
                    "Idempotency-Key", "k-1", "X-Api-Key", "bob");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(Http.text(retry)).isEqualTo(Http.text(first));   // the timestamp is not fingerprinted
            assertThat(otherBody.statusCode()).isEqualTo(422);          // same key, another request
            assertThat(otherUser.statusCode()).isEqualTo(201);          // keys are per principal
            assertThat(charged).hasValue(2);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void responseFilter() throws Exception {
        IdempotencyEngine engine = engine();
        // tag::response-filter[]
        HttpIdempotency idempotency = HttpIdempotency.builder(engine)
                .responseFilter(ResponseFilter.removingJsonFields("/card/number", "/payer/email"))
                .build();
        // end::response-filter[]
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        try {
            server.createContext("/v1/charges", new IdempotentHttpHandler(idempotency,
                    exchange -> reply(exchange, chargeBody()))).setAuthenticator(API_KEYS);
            server.start();
            Http http = new Http("http://127.0.0.1:" + server.getAddress().getPort());

            HttpResponse<byte[]> first = http.post("/v1/charges", "{}", "Idempotency-Key", "k-2", "X-Api-Key", "alice");
            HttpResponse<byte[]> replay = http.post("/v1/charges", "{}", "Idempotency-Key", "k-2", "X-Api-Key", "alice");

            assertThat(Http.text(first)).contains("4242");
            assertThat(Http.text(replay)).contains("ch_1").doesNotContain("4242");
            assertThat(charged).hasValue(1);
        } finally {
            server.stop(0);
        }
    }

    /** Stands in for container security: the X-Api-Key header becomes the user principal. */
    private static Filter authentication() {
        return (req, res, chain) -> {
            HttpServletRequest http = (HttpServletRequest) req;
            String user = http.getHeader("X-Api-Key");
            Principal principal = () -> user;
            chain.doFilter(user == null ? req : new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }
            }, res);
        };
    }

    @Test
    void servletFilter() throws Exception {
        HttpIdempotency idempotency = setup();
        ServletContainerInitializer initializer = (classes, servletContext) -> {
            // tag::servlet[]
            FilterRegistration.Dynamic f = servletContext.addFilter("idem", new IdempotencyServletFilter(idempotency));
            f.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/v1/*");
            // end::servlet[]
        };
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addFilter(new FilterHolder(authentication()), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServletContainerInitializer(initializer);
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                req.getInputStream().readAllBytes();
                resp.setStatus(201);
                resp.setContentType("application/json");
                resp.getOutputStream().write(chargeBody().getBytes(StandardCharsets.UTF_8));
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        try {
            Http http = new Http("http://127.0.0.1:" + connector.getLocalPort());

            HttpResponse<byte[]> first = http.post("/v1/charges", "{\"amount\":10}",
                    "Idempotency-Key", "k-3", "X-Api-Key", "alice");
            HttpResponse<byte[]> retry = http.post("/v1/charges", "{\"amount\":10}",
                    "Idempotency-Key", "k-3", "X-Api-Key", "alice");
            HttpResponse<byte[]> unmapped = http.post("/other", "{}", "Idempotency-Key", "k-3", "X-Api-Key", "alice");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(Http.text(retry)).isEqualTo(Http.text(first));
            assertThat(Http.text(unmapped)).contains("ch_2");           // not under /v1/*: not idempotent
            assertThat(charged).hasValue(2);
        } finally {
            server.stop();
        }
    }
}
