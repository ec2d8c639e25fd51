package dev.idem.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotentHttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small payments API on the JDK HTTP server, bound to loopback: {@code POST /v1/charges}
 * and {@code POST /v1/refunds}, authenticated by an {@code X-Api-Key}, each wrapped in
 * {@link IdempotentHttpHandler} (unless idempotency is switched off to show the difference).
 * The handlers themselves are naive on purpose: they insert a row every time they run.
 */
public final class PaymentsService implements AutoCloseable {
    /** The request header carrying the merchant's API key. */
    public static final String API_KEY = "X-Api-Key";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Ledger ledger;
    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicLong executions = new AtomicLong();

    /**
     * Starts the service on an ephemeral loopback port.
     *
     * @param engine the engine (null to serve without idempotency)
     * @param merchant the only merchant, reached with {@code apiKey}
     */
    public PaymentsService(Ledger ledger, IdempotencyEngine engine, String merchant, String apiKey)
            throws IOException {
        this.ledger = ledger;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        this.executor = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "payments-service");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        Authenticator auth = new Authenticator() {
            @Override
            public Result authenticate(HttpExchange exchange) {
                return apiKey.equals(exchange.getRequestHeaders().getFirst(API_KEY))
                        ? new Success(new HttpPrincipal(merchant, "payments")) : new Failure(401);
            }
        };
        HttpIdempotency config = engine == null ? null : HttpIdempotency.builder(engine).build();
        server.createContext("/v1/charges", wrap(config, this::charge)).setAuthenticator(auth);
        server.createContext("/v1/refunds", wrap(config, this::refund)).setAuthenticator(auth);
        server.start();
    }

    private static HttpHandler wrap(HttpIdempotency config, HttpHandler handler) {
        return config == null ? handler : new IdempotentHttpHandler(config, handler);
    }

    /** The port the service listens on (127.0.0.1). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** How many times a charge or refund handler ran to completion (inserted a row). */
    public long executions() {
        return executions.get();
    }

    private void charge(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("POST")) {
            send(ex, 405, error("method_not_allowed", "use POST"));
            return;
        }
        JsonNode body = readJson(ex);
        String merchant = ex.getPrincipal().getUsername();
        String reference = text(body, "reference");
        String customer = text(body, "customer");
        String currency = text(body, "currency");
        long amount = body == null ? 0 : body.path("amountCents").asLong(0);
        if (reference == null || customer == null || currency == null || !currency.matches("[A-Z]{3}")
                || amount <= 0 || amount > 1_000_000_00L) {
            send(ex, 400, error("invalid_charge", "reference, customer, currency (ISO 4217) and a positive"
                    + " amountCents are required"));
            return;
        }
        Ledger.Charge charge = new Ledger.Charge("ch_" + UUID.randomUUID().toString().replace("-", ""), reference,
                customer, amount, currency);
        try {
            ledger.insertCharge(merchant, charge);
        } catch (SQLException e) {
            throw new IOException("ledger unavailable", e);
        }
        executions.incrementAndGet();
        ObjectNode out = JSON.createObjectNode();
        out.put("id", charge.id()).put("reference", reference).put("customer", customer).put("amountCents", amount)
                .put("currency", currency).put("status", "succeeded");
        ex.getResponseHeaders().set("Location", "/v1/charges/" + charge.id());
        send(ex, 201, out);
    }

    private void refund(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("POST")) {
            send(ex, 405, error("method_not_allowed", "use POST"));
            return;
        }
        JsonNode body = readJson(ex);
        String merchant = ex.getPrincipal().getUsername();
        String reference = text(body, "reference");
        String chargeId = text(body, "chargeId");
        long amount = body == null ? 0 : body.path("amountCents").asLong(0);
        if (reference == null || chargeId == null || amount <= 0) {
            send(ex, 400, error("invalid_refund", "reference, chargeId and a positive amountCents are required"));
            return;
        }
        try {
            Optional<Ledger.Charge> charge = ledger.findCharge(merchant, chargeId);
            if (charge.isEmpty()) {
                send(ex, 404, error("no_such_charge", "charge " + chargeId + " does not exist"));
                return;
            }
            if (ledger.refunded(merchant, chargeId) + amount > charge.get().amountCents()) {
                send(ex, 422, error("refund_exceeds_charge", "the refunds would exceed the charged amount"));
                return;
            }
            String id = "re_" + UUID.randomUUID().toString().replace("-", "");
            ledger.insertRefund(merchant, id, reference, chargeId, amount);
            executions.incrementAndGet();
            ObjectNode out = JSON.createObjectNode();
            out.put("id", id).put("reference", reference).put("chargeId", chargeId).put("amountCents", amount)
                    .put("status", "succeeded");
            send(ex, 201, out);
        } catch (SQLException e) {
            throw new IOException("ledger unavailable", e);
        }
    }

    private static JsonNode readJson(HttpExchange ex) {
        try (InputStream in = ex.getRequestBody()) {
            return JSON.readTree(in);
        } catch (IOException e) {
            return null;
        }
    }

    private static String text(JsonNode body, String field) {
        if (body == null || !body.path(field).isTextual() || body.path(field).asText().isBlank()
                || body.path(field).asText().length() > 100) {
            return null;
        }
        return body.path(field).asText();
    }

    private static ObjectNode error(String code, String message) {
        ObjectNode node = JSON.createObjectNode();
        node.putObject("error").put("code", code).put("message", message);
        return node;
    }

    private static void send(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
