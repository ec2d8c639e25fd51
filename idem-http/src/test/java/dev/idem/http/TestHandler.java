package dev.idem.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application behind the filter in both server tests: counts executions per route and
 * key, so a test can see whether the handler really ran.
 */
final class TestHandler {
    /** What the application answers. */
    record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {
    }

    final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    volatile CountDownLatch gate = new CountDownLatch(0);
    volatile CountDownLatch entered = new CountDownLatch(0);

    int executions(String route, String key) {
        AtomicInteger n = executions.get(route + " " + key);
        return n == null ? 0 : n.get();
    }

    /** Runs the application for {@code route}; {@code context} is the execution context attribute or null. */
    Reply handle(String method, String route, String key, byte[] body, Object context) throws Exception {
        int n = executions.computeIfAbsent(route + " " + key, k -> new AtomicInteger()).incrementAndGet();
        String name = route.substring(route.lastIndexOf('/') + 1);
        switch (name) {
            case "charges": {
                String json = "{\"charge\":\"ch_" + n + "_" + UUID.randomUUID() + "\",\"received\":"
                        + (body.length == 0 ? "null" : new String(body, StandardCharsets.UTF_8)) + "}";
                return new Reply(201, "application/json", json.getBytes(StandardCharsets.UTF_8),
                        Map.of("Location", "/v1/charges/" + n, "X-Trace", UUID.randomUUID().toString(),
                                "ETag", "\"v" + n + "\""));
            }
            case "decline":
                throw new IllegalArgumentException("card declined");
            case "fail":
                return new Reply(500, "text/plain", ("boom " + n).getBytes(StandardCharsets.UTF_8), Map.of());
            case "throw-once":
                if (n == 1) {
                    throw new IllegalStateException("the handler failed");
                }
                return new Reply(201, "text/plain", ("ok " + n).getBytes(StandardCharsets.UTF_8), Map.of());
            case "bad":
                return new Reply(400, "application/json", ("{\"error\":\"bad\",\"n\":" + n + "}")
                        .getBytes(StandardCharsets.UTF_8), Map.of());
            case "limited":
                return new Reply(429, "text/plain", ("slow down " + n).getBytes(StandardCharsets.UTF_8), Map.of());
            case "slow": {
                entered.countDown();
                if (!gate.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
                return new Reply(201, "text/plain", ("slow " + n + " " + UUID.randomUUID())
                        .getBytes(StandardCharsets.UTF_8), Map.of());
            }
            case "binary": {
                byte[] reversed = new byte[body.length];
                for (int i = 0; i < body.length; i++) {
                    reversed[i] = body[body.length - 1 - i];
                }
                return new Reply(200, "application/octet-stream", reversed, Map.of());
            }
            case "huge":
                // Larger than the store can hold: the filter keeps no more of it than that limit.
                return new Reply(200, "application/octet-stream", new byte[SwitchableStore.MAX_OUTCOME_BYTES * 2],
                        Map.of());
            case "unsupported":
                return new Reply(415, "text/plain", ("unsupported " + n).getBytes(StandardCharsets.UTF_8), Map.of());
            case "not-allowed":
                return new Reply(405, "text/plain", ("not allowed " + n).getBytes(StandardCharsets.UTF_8),
                        Map.of("Allow", "GET"));
            case "empty":
                return new Reply(204, null, new byte[0], Map.of("X-Count", Integer.toString(n)));
            case "deadline": {
                // What the caller's X-Request-Timeout left the handler, as the work sees it.
                dev.idem.engine.ExecutionContext ctx = (dev.idem.engine.ExecutionContext) context;
                String text = ctx.deadline().map(d -> Long.toString(d.remaining().toMillis())).orElse("none");
                return new Reply(200, "text/plain", text.getBytes(StandardCharsets.UTF_8), Map.of());
            }
            case "outlive": {
                // Runs past the caller's deadline, as slow work does; its response must still be stored.
                dev.idem.api.time.Deadline d = ((dev.idem.engine.ExecutionContext) context).deadline().orElseThrow();
                if (d.remaining().compareTo(java.time.Duration.ofSeconds(5)) > 0) {
                    throw new IllegalStateException("the test gave a budget too long to outlive: " + d);
                }
                while (!d.isExpired()) {
                    Thread.sleep(Math.max(1, d.remaining().toMillis()));
                }
                return new Reply(201, "text/plain", ("outlived " + n + " " + UUID.randomUUID())
                        .getBytes(StandardCharsets.UTF_8), Map.of());
            }
            case "context": {
                dev.idem.engine.ExecutionContext ctx = (dev.idem.engine.ExecutionContext) context;
                String text = ctx == null ? "none" : ctx.attempt() + " " + ctx.downstreamKey() + " " + ctx.key().scope()
                        + " " + ctx.key().operation();
                return new Reply(200, "text/plain", text.getBytes(StandardCharsets.UTF_8), Map.of());
            }
            default:
                return new Reply(200, "text/plain", (method + " " + route + " " + n + " " + UUID.randomUUID())
                        .getBytes(StandardCharsets.UTF_8), Map.of());
        }
    }
}
