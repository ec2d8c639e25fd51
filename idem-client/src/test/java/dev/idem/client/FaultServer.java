package dev.idem.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A loopback HTTP server that answers each path from a script of faults, one per request; the last
 * fault repeats. Records the {@code Idempotency-Key} and {@code X-Request-Timeout} headers of every
 * request it receives.
 */
final class FaultServer implements AutoCloseable {

    /** One scripted answer. */
    @FunctionalInterface
    interface Fault {
        void respond(HttpExchange exchange) throws IOException;
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final Map<String, Deque<Fault>> scripts = new HashMap<>();
    private final Map<String, List<String>> keys = new ConcurrentHashMap<>();
    private final Map<String, List<String>> timeouts = new ConcurrentHashMap<>();

    private FaultServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    static FaultServer start() throws IOException {
        return new FaultServer();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    synchronized void script(String path, Fault... faults) {
        scripts.put(path, new ArrayDeque<>(List.of(faults)));
    }

    /** Every request's key header values (joined with commas, so duplicates would show). */
    List<String> keys(String path) {
        return List.copyOf(keys.getOrDefault(path, List.of()));
    }

    /** Every request's {@code X-Request-Timeout} values (joined with commas; {@code <none>} if absent). */
    List<String> timeouts(String path) {
        return List.copyOf(timeouts.getOrDefault(path, List.of()));
    }

    private synchronized Fault next(String path) {
        Deque<Fault> script = scripts.get(path);
        if (script == null) {
            return status(500);
        }
        return script.size() > 1 ? script.poll() : script.peek();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        List<String> values = exchange.getRequestHeaders().get(IdempotentHttpClient.IDEMPOTENCY_KEY);
        keys.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>())
                .add(values == null ? "<none>" : String.join(",", values));
        List<String> budget = exchange.getRequestHeaders().get(IdempotentHttpClient.REQUEST_TIMEOUT);
        timeouts.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>())
                .add(budget == null ? "<none>" : String.join(",", budget));
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        next(path).respond(exchange);
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                throw new AssertionError("fault server threads did not stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping the fault server", e);
        }
    }

    // ---- faults

    /** A status with an empty body and the given header name/value pairs. */
    static Fault status(int code, String... headers) {
        return exchange -> respond(exchange, code, null, "", headers);
    }

    /** A status with a body. */
    static Fault body(int code, String contentType, String body, String... headers) {
        return exchange -> respond(exchange, code, contentType, body, headers);
    }

    /** Never answers (until the server closes), so the client's timeout fires. */
    Fault hang() {
        return exchange -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        };
    }

    /** Promises 100 bytes, sends 10, then fails, which makes the server drop the connection. */
    static Fault closeMidResponse() {
        return exchange -> {
            exchange.sendResponseHeaders(200, 100);
            OutputStream out = exchange.getResponseBody();
            out.write("0123456789".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            throw new IOException("fault injected: connection closed mid-response");
        };
    }

    private static void respond(
            HttpExchange exchange, int code, String contentType, String body, String... headers)
            throws IOException {
        for (int i = 0; i < headers.length; i += 2) {
            exchange.getResponseHeaders().add(headers[i], headers[i + 1]);
        }
        if (contentType != null) {
            exchange.getResponseHeaders().add("Content-Type", contentType);
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(code, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
