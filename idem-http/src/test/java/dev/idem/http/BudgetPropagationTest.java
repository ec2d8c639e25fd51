package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The budget end to end over two idem services on the JDK server: a client's
 * {@code X-Request-Timeout} reaches service A's handler as its deadline, and the idem-client call A's
 * handler makes to service B carries what is left of it, without the handler passing anything.
 */
class BudgetPropagationTest {
    private static final Map<String, String> SEEN_BY_B = new ConcurrentHashMap<>();
    private static HttpServer server;
    private static ExecutorService executor;
    private static IdempotentHttpClient client;
    private static Http http;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        executor = Executors.newFixedThreadPool(8);
        server.setExecutor(executor);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
        HttpIdempotency config = HttpIdempotency.builder(engine).principals(PrincipalResolver.fixed("svc")).build();
        server.createContext("/b/", new IdempotentHttpHandler(config, serviceB()));
        server.createContext("/a/", new IdempotentHttpHandler(config, serviceA()));
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        client = IdempotentHttpClient.newBuilder(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
                .build();
        http = new Http(base);
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    /** Records the header B received and the deadline B's handler sees. */
    private static HttpHandler serviceB() {
        return exchange -> {
            drain(exchange);
            ExecutionContext ctx = (ExecutionContext) exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            SEEN_BY_B.put(key, exchange.getRequestHeaders().getFirst("X-Request-Timeout") + " "
                    + ctx.deadline().map(d -> d.remaining().toMillis()).orElse(-1L));
            reply(exchange, 201, "b-done");
        };
    }

    /** Calls B through idem-client from inside its own work, passing nothing but the request. */
    private static HttpHandler serviceA() {
        return exchange -> {
            drain(exchange);
            ExecutionContext ctx = (ExecutionContext) exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
            URI b = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/b/charges");
            IdempotentResponse<String> r;
            try {
                r = client.send(HttpRequest.newBuilder(b).header("Idempotency-Key", ctx.downstreamKey())
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            String left = ctx.deadline().map(d -> Long.toString(d.remaining().toMillis())).orElse("none");
            reply(exchange, 201, r.idempotencyKey() + " " + left);
        };
    }

    private static void drain(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
    }

    private static void reply(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** B's view of the call A made for this client request: its header, and the milliseconds its handler had. */
    private static long[] seenByB(HttpResponse<byte[]> fromA) {
        String downstreamKey = Http.text(fromA).split(" ")[0];
        String[] seen = SEEN_BY_B.get("\"" + downstreamKey + "\"").split(" ");
        return new long[] {Long.parseLong(seen[0]), Long.parseLong(seen[1])};
    }

    @Test
    void aHandlerCallingAnotherIdemServicePassesOnWhatIsLeftOfItsCallersBudget() throws Exception {
        HttpResponse<byte[]> r = http.post("/a/charges", "{}", "Idempotency-Key", "k-" + System.nanoTime(),
                "X-Request-Timeout", "4000");

        assertThat(r.statusCode()).isEqualTo(201);
        long[] b = seenByB(r);
        assertThat(b[0]).as("the header B received").isBetween(1L, 4000L);
        assertThat(b[1]).as("what B's handler had left").isBetween(0L, b[0]);
        assertThat(Long.parseLong(Http.text(r).split(" ")[1])).as("what A had left after B answered")
                .isLessThanOrEqualTo(b[1]);
    }

    @Test
    void withoutABudgetTheClientSendsItsOwnDeadline() throws Exception {
        HttpResponse<byte[]> r = http.post("/a/charges", "{}", "Idempotency-Key", "k-" + System.nanoTime());

        assertThat(Http.text(r)).endsWith(" none");
        // The client's default policy gives the whole sequence 30 s.
        assertThat(seenByB(r)[0]).isBetween(Duration.ofSeconds(20).toMillis(), Duration.ofSeconds(30).toMillis());
        assertThat(List.of(r.statusCode())).containsExactly(201);
    }
}
