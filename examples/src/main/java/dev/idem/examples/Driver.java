package dev.idem.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.client.Attempt;
import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.client.RetryBudget;
import dev.idem.client.RetryListener;
import dev.idem.client.RetryPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client side: logical charges (and refunds of some of them) from several threads,
 * through idem-client with one idempotency key per intent. When the client gives up (its
 * attempts, deadline or retry budget are spent) the intent is driven again later with the
 * same key, as a real caller with a durable outbox would.
 */
final class Driver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_CALLS_PER_INTENT = 12;

    private final DemoSettings settings;
    private final URI base;
    private final String apiKey;
    private final IdempotentHttpClient client;
    private final ExecutorService httpExecutor;
    final AtomicLong attempts = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong budgetRefusals = new AtomicLong();
    final AtomicLong redrives = new AtomicLong();
    final AtomicLong done = new AtomicLong();
    /** Intent reference -> id the client was given. */
    final Map<String, String> confirmedCharges = new ConcurrentHashMap<>();
    final Map<String, String> confirmedRefunds = new ConcurrentHashMap<>();

    Driver(DemoSettings settings, int proxyPort, String apiKey) {
        this.settings = settings;
        this.base = URI.create("http://127.0.0.1:" + proxyPort);
        this.apiKey = apiKey;
        this.httpExecutor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "demo-client-http");
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).executor(httpExecutor).build();
        this.client = IdempotentHttpClient.newBuilder(http)
                .policy(RetryPolicy.builder()
                        .maxAttempts(5)
                        .baseDelay(Duration.ofMillis(20))
                        .maxDelay(Duration.ofMillis(400))
                        .deadline(Duration.ofSeconds(8))
                        .build())
                .budget(RetryBudget.builder().ratio(0.5).minRetriesPerSecond(20).build())
                .listener(new RetryListener() {
                    @Override
                    public void onAttempt(Attempt attempt) {
                        attempts.incrementAndGet();
                    }

                    @Override
                    public void onRetryScheduled(Attempt failed, Duration delay, String reason) {
                        retries.incrementAndGet();
                    }

                    @Override
                    public void onBudgetExhausted(Attempt failed, String reason) {
                        budgetRefusals.incrementAndGet();
                    }
                })
                .build();
    }

    int refundCount() {
        int every = settings.refundEvery();
        return every == 0 ? 0 : (settings.charges() + every - 1) / every;
    }

    static String chargeReference(int i) {
        return "order-" + i;
    }

    static String refundReference(int i) {
        return "refund-" + i;
    }

    /** Runs every intent; returns when all finished (or were abandoned after many calls). */
    void run() throws InterruptedException {
        ExecutorService workers = Executors.newFixedThreadPool(settings.threads(), r -> {
            Thread t = new Thread(r, "demo-driver");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < settings.charges(); i++) {
                int n = i;
                futures.add(workers.submit(() -> {
                    intent(n);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get(10, TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new IllegalStateException("a payment intent failed unexpectedly", e);
                }
            }
        } finally {
            workers.shutdownNow();
            httpExecutor.shutdownNow();
        }
    }

    private void intent(int i) throws InterruptedException {
        long amount = 500 + (i * 7919L) % 20_000;
        String chargeJson = String.format(Locale.ROOT,
                "{\"reference\":\"%s\",\"customer\":\"cust-%d\",\"amountCents\":%d,\"currency\":\"EUR\"}",
                chargeReference(i), i % 13, amount);
        JsonNode charge = callUntilDone(key("charge", i), "/v1/charges", chargeJson);
        done.incrementAndGet();
        if (charge == null) {
            return;
        }
        String chargeId = charge.path("id").asText();
        confirmedCharges.put(chargeReference(i), chargeId);
        if (settings.refundEvery() > 0 && i % settings.refundEvery() == 0) {
            String refundJson = String.format(Locale.ROOT,
                    "{\"reference\":\"%s\",\"chargeId\":\"%s\",\"amountCents\":%d}", refundReference(i), chargeId,
                    amount / 2);
            JsonNode refund = callUntilDone(key("refund", i), "/v1/refunds", refundJson);
            done.incrementAndGet();
            if (refund != null) {
                confirmedRefunds.put(refundReference(i), refund.path("id").asText());
            }
        }
    }

    /** A stable key per intent: the same seed gives the same keys, and so the same fault plan. */
    private String key(String kind, int i) {
        return UUID.nameUUIDFromBytes((settings.seed() + ":" + kind + ":" + i).getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    /** Calls until a final 2xx answer; null if the intent had to be abandoned or was refused. */
    private JsonNode callUntilDone(String key, String path, String json) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(settings.requestTimeout())
                .header("Content-Type", "application/json")
                .header(IdempotentHttpClient.IDEMPOTENCY_KEY, key)
                .header(PaymentsService.API_KEY, apiKey)
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        for (int call = 0; call < MAX_CALLS_PER_INTENT; call++) {
            if (call > 0) {
                redrives.incrementAndGet();
                Thread.sleep(Math.min(1000, 100L * call));
            }
            try {
                IdempotentResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                int status = r.statusCode();
                if (status >= 200 && status < 300) {
                    return JSON.readTree(r.body());
                }
                if (status >= 400 && status < 500 && status != 409 && status != 429) {
                    return null; // refused for good: nothing to retry
                }
            } catch (IOException e) {
                // The client gave up on a failing connection; drive the intent again.
            }
        }
        return null;
    }

    /** Prints one progress line. */
    void progress(PrintStream out, long startNanos, int intents, FaultInjectingProxy.Stats proxy) {
        out.printf(Locale.ROOT, "[%5.1fs] %d/%d intents done | %d attempts | %d responses lost | %d duplicates sent"
                        + " | %d replays | %d x 409%n",
                (System.nanoTime() - startNanos) / 1e9, done.get(), intents, attempts.get(),
                proxy.dropped() + proxy.badGateway(), proxy.duplicated(), proxy.replays(), proxy.inProgress());
    }
}
