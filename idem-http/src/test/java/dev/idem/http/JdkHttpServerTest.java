package dev.idem.http;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import dev.idem.engine.IdempotencyEngine;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract on the JDK's {@code com.sun.net.httpserver}, with {@link IdempotentHttpHandler} behind an {@code Authenticator}. */
class JdkHttpServerTest extends AbstractHttpContract {
    private static final TestHandler HANDLER = new TestHandler();
    private static final SwitchableStore STORE = newStore();
    private static HttpServer server;
    private static ExecutorService executor;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        executor = Executors.newFixedThreadPool(16);
        server.setExecutor(executor);
        IdempotencyEngine engine = engine(STORE);
        HttpContext api = server.createContext("/api/", new IdempotentHttpHandler(config(engine), app()));
        api.setAuthenticator(authenticator());
        server.createContext("/anon/", new IdempotentHttpHandler(config(engine), app()));
        server.createContext("/custom/", new IdempotentHttpHandler(storeAllConfig(engine), app()))
                .setAuthenticator(api.getAuthenticator());
        server.createContext("/final/", new IdempotentHttpHandler(config(finalFailureEngine(STORE)), app()))
                .setAuthenticator(api.getAuthenticator());
        server.start();
        http = new Http("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    /**
     * The X-User header as the principal, {@code realm:user} as the JDK names it: realm "test", or
     * the part before the first colon. A request with an API key and no user goes on with no name
     * (a gateway verified the key), so the adapter falls back to the key.
     */
    static Authenticator authenticator() {
        return new Authenticator() {
            @Override
            public Result authenticate(HttpExchange exchange) {
                String user = exchange.getRequestHeaders().getFirst("X-User");
                if (user == null) {
                    return exchange.getRequestHeaders().containsKey("X-Api-Key") ? new Success(new Unnamed())
                            : new Failure(401);
                }
                int colon = user.indexOf(':');
                return new Success(colon < 0 ? new HttpPrincipal(user, "test")
                        : new HttpPrincipal(user.substring(colon + 1), user.substring(0, colon)));
            }
        };
    }

    /** Let through without a name. */
    private static final class Unnamed extends HttpPrincipal {
        Unnamed() {
            super("", "");
        }

        @Override
        public String getName() {
            return "";
        }
    }

    @Override
    String principalName(String user) {
        return user.contains(":") ? user : "test:" + user;
    }

    private static HttpHandler app() {
        return app(HANDLER);
    }

    /** The application: {@code handler} behind the JDK's exchange. */
    static HttpHandler app(TestHandler handler) {
        return exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            TestHandler.Reply reply;
            try {
                reply = handler.handle(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                        String.valueOf(exchange.getRequestHeaders().getFirst("Idempotency-Key")), body,
                        exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            if (reply.contentType() != null) {
                exchange.getResponseHeaders().set("Content-Type", reply.contentType());
            }
            reply.headers().forEach(exchange.getResponseHeaders()::set);
            boolean noBody = reply.body().length == 0 || exchange.getRequestMethod().equals("HEAD");
            exchange.sendResponseHeaders(reply.status(), noBody ? -1 : reply.body().length);
            if (!noBody) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply.body());
                }
            }
            exchange.close();
        };
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
