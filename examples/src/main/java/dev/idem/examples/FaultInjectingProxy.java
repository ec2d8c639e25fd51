package dev.idem.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
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
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tiny HTTP forwarder on loopback that stands for the unreliable network between client
 * and server: it drops answers after the server did the work, answers 502 or 503, sends
 * requests twice, and holds requests back, as its {@link FaultPlan} says. Forwards only to
 * 127.0.0.1.
 */
public final class FaultInjectingProxy implements AutoCloseable {
    private static final List<String> REQUEST_HEADERS = List.of("Content-Type", "Idempotency-Key",
            PaymentsService.API_KEY);
    private static final List<String> RESPONSE_HEADERS = List.of("Content-Type", "Location", "Retry-After",
            "Idempotency-Status", "Idempotent-Replayed");

    /** What the proxy did and saw, for the audit. */
    public static final class Stats {
        final AtomicLong requests = new AtomicLong();
        final AtomicLong forwarded = new AtomicLong();
        final AtomicLong dropped = new AtomicLong();
        final AtomicLong badGateway = new AtomicLong();
        final AtomicLong unavailable = new AtomicLong();
        final AtomicLong duplicated = new AtomicLong();
        final AtomicLong delayed = new AtomicLong();
        final AtomicLong replays = new AtomicLong();
        final AtomicLong inProgress = new AtomicLong();

        /** Requests received from the client. */
        public long requests() {
            return requests.get();
        }

        /** Requests sent to the server (duplicates included). */
        public long forwarded() {
            return forwarded.get();
        }

        /** Answers dropped after the server answered. */
        public long dropped() {
            return dropped.get();
        }

        /** Server answers replaced by 502. */
        public long badGateway() {
            return badGateway.get();
        }

        /** 503s answered without forwarding. */
        public long unavailable() {
            return unavailable.get();
        }

        /** Requests sent twice. */
        public long duplicated() {
            return duplicated.get();
        }

        /** Requests held back. */
        public long delayed() {
            return delayed.get();
        }

        /** Server answers marked as replays. */
        public long replays() {
            return replays.get();
        }

        /** Server answers 409 (request in progress). */
        public long inProgress() {
            return inProgress.get();
        }
    }

    private final FaultPlan plan;
    private final URI target;
    private final HttpServer server;
    private final ExecutorService executor;
    private final HttpClient client;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final Stats stats = new Stats();

    /** Starts a proxy on an ephemeral loopback port, forwarding to 127.0.0.1:{@code targetPort}. */
    public FaultInjectingProxy(FaultPlan plan, int targetPort) throws IOException {
        this.plan = plan;
        this.target = URI.create("http://127.0.0.1:" + targetPort);
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fault-proxy");
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).executor(executor).build();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The port the proxy listens on (127.0.0.1). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The counters. */
    public Stats stats() {
        return stats;
    }

    private void handle(HttpExchange ex) throws IOException {
        stats.requests.incrementAndGet();
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        }
        String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
        int attempt = key == null ? 1 : attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        FaultPlan.Fault fault = key == null ? FaultPlan.Fault.NONE : plan.fault(key, attempt);
        try {
            switch (fault) {
                case UNAVAILABLE -> {
                    stats.unavailable.incrementAndGet();
                    answer(ex, 503, "text/plain", "proxy: upstream unavailable".getBytes(StandardCharsets.UTF_8),
                            Map.of());
                }
                case DROP_RESPONSE -> {
                    forward(ex, body);
                    stats.dropped.incrementAndGet();
                    // Closing before any response header makes the server drop the connection.
                    ex.close();
                }
                case BAD_GATEWAY -> {
                    forward(ex, body);
                    stats.badGateway.incrementAndGet();
                    answer(ex, 502, "text/plain", "proxy: bad gateway".getBytes(StandardCharsets.UTF_8), Map.of());
                }
                case DUPLICATE -> {
                    stats.duplicated.incrementAndGet();
                    Future<HttpResponse<byte[]>> copy = executor.submit(() -> forward(ex, body));
                    HttpResponse<byte[]> first = forward(ex, body);
                    try {
                        copy.get(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // The copy's fate does not change what the client gets.
                    }
                    relay(ex, first);
                }
                case DELAY -> {
                    stats.delayed.incrementAndGet();
                    Thread.sleep(plan.delay(key, attempt).toMillis());
                    relay(ex, forward(ex, body));
                }
                case NONE -> relay(ex, forward(ex, body));
                default -> throw new IllegalStateException("unknown fault " + fault);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ex.close();
        } catch (IOException e) {
            try {
                answer(ex, 502, "text/plain", ("proxy: " + e).getBytes(StandardCharsets.UTF_8), Map.of());
            } catch (IOException | RuntimeException alreadyAnswered) {
                // The client went away (it timed out) or the answer was under way: nothing left to tell it.
                ex.close();
            }
        }
    }

    private HttpResponse<byte[]> forward(HttpExchange ex, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(target.resolve(ex.getRequestURI()))
                .timeout(Duration.ofSeconds(10))
                .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
        for (String name : REQUEST_HEADERS) {
            String value = ex.getRequestHeaders().getFirst(name);
            if (value != null) {
                request.header(name, value);
            }
        }
        stats.forwarded.incrementAndGet();
        HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.headers().firstValue("Idempotency-Status").filter("replayed"::equals).isPresent()) {
            stats.replays.incrementAndGet();
        }
        if (response.statusCode() == 409) {
            stats.inProgress.incrementAndGet();
        }
        return response;
    }

    private static void relay(HttpExchange ex, HttpResponse<byte[]> response) throws IOException {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        for (String name : RESPONSE_HEADERS) {
            response.headers().firstValue(name).ifPresent(v -> headers.put(name, v));
        }
        String type = headers.remove("Content-Type");
        answer(ex, response.statusCode(), type, response.body(), headers);
    }

    private static void answer(HttpExchange ex, int status, String contentType, byte[] body, Map<String, String> headers)
            throws IOException {
        if (contentType != null) {
            ex.getResponseHeaders().set("Content-Type", contentType);
        }
        headers.forEach(ex.getResponseHeaders()::set);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
