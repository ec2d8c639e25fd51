package dev.idem.client;

import static dev.idem.client.FaultServer.status;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A server failing every request: concurrent callers sharing a budget stay within it. */
@Timeout(60)
class HttpRetryBudgetTest {

    @Test
    void massFailureRetriesStayWithinTheSharedBudget() throws Exception {
        FakeTime time = new FakeTime(); // frozen unless slept: one window, exact bound
        double ratio = 0.1;
        int floorPerSecond = 1;
        Duration window = Duration.ofSeconds(10);
        RetryBudget shared =
                RetryBudget.builder()
                        .ratio(ratio)
                        .minRetriesPerSecond(floorPerSecond)
                        .window(window)
                        .ticker(time)
                        .build();
        RetryPolicy policy =
                RetryPolicy.builder()
                        .maxAttempts(4)
                        .ticker(time)
                        .sleeper(d -> {})
                        .random(FixedRandom.lowest())
                        .build();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        // Two clients, one budget: the budget is per downstream, not per client object.
        IdempotentHttpClient a = IdempotentHttpClient.newBuilder(http).policy(policy).budget(shared).build();
        IdempotentHttpClient b = IdempotentHttpClient.newBuilder(http).policy(policy).budget(shared).build();

        int threads = 6;
        int callsPerThread = 20;
        try (FaultServer server = FaultServer.start()) {
            server.script("/pay", status(503));
            URI uri = server.uri("/pay");
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    IdempotentHttpClient client = t % 2 == 0 ? a : b;
                    boolean async = t % 3 == 0;
                    done.add(
                            pool.submit(
                                    () -> {
                                        start.await(10, TimeUnit.SECONDS);
                                        for (int i = 0; i < callsPerThread; i++) {
                                            HttpRequest request =
                                                    HttpRequest.newBuilder(uri)
                                                            .timeout(Duration.ofSeconds(5))
                                                            .POST(BodyPublishers.ofString("x"))
                                                            .build();
                                            IdempotentResponse<String> r =
                                                    async
                                                            ? client
                                                                    .sendAsync(request, BodyHandlers.ofString())
                                                                    .get(10, TimeUnit.SECONDS)
                                                            : client.send(request, BodyHandlers.ofString());
                                            assertThat(r.statusCode()).isEqualTo(503);
                                        }
                                        return null;
                                    }));
                }
                for (Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
            int calls = threads * callsPerThread;
            int retries = server.keys("/pay").size() - calls;
            double bound = ratio * calls + floorPerSecond * window.toSeconds();
            // Unbudgeted, this would be 3 retries per call (360).
            assertThat((double) retries).isLessThanOrEqualTo(bound);
            assertThat(retries).isPositive();
        }
    }

}
