package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The engine on the DynamoDB store: what a service sees end to end. */
@Timeout(120)
class EngineOnDynamoDbTest {
    private static final Map<String, Object> REQUEST = Map.of("amount", 10, "currency", "EUR");

    private final String table = DynamoDbStoreFixture.table("default");
    private final String scope = "engine-" + UUID.randomUUID();

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "charge", k);
    }

    private DynamoDbIdempotencyStore store(DynamoDbClient client, java.time.Clock clock) {
        return DynamoDbIdempotencyStore.builder().client(client).tableName(table).clock(clock).build();
    }

    @Test
    void manyThreadsOnSeveralEnginesWithTheirOwnClientsRunTheWorkOncePerKey() throws Exception {
        int engines = 3;
        int threadsPerEngine = 4;
        int keys = 5;
        List<DynamoDbClient> clients = new ArrayList<>();
        List<IdempotencyEngine> fleet = new ArrayList<>();
        for (int e = 0; e < engines; e++) {
            DynamoDbClient client = DynamoDbLocal.client();
            clients.add(client);
            fleet.add(IdempotencyEngine.builder().store(store(client, java.time.Clock.systemUTC()))
                    .lease(Duration.ofSeconds(20)).ttl(Duration.ofMinutes(5))
                    .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20))).build());
        }
        AtomicInteger[] runs = new AtomicInteger[keys];
        for (int k = 0; k < keys; k++) {
            runs[k] = new AtomicInteger();
        }
        int threads = engines * threadsPerEngine;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Result<String>>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                IdempotencyEngine engine = fleet.get(t % engines);
                int offset = t;
                futures.add(pool.submit((Callable<List<Result<String>>>) () -> {
                    start.await(30, TimeUnit.SECONDS);
                    List<Result<String>> results = new ArrayList<>();
                    for (int i = 0; i < keys; i++) {
                        int k = (i + offset) % keys;
                        results.add(engine.execute(key("k" + k), REQUEST, String.class, ctx -> {
                            runs[k].incrementAndGet();
                            return "charged-" + k + "-" + ctx.fencingToken();
                        }));
                    }
                    return results;
                }));
            }
            List<Result<String>> all = new ArrayList<>();
            for (Future<List<Result<String>>> f : futures) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }
            for (int k = 0; k < keys; k++) {
                assertThat(runs[k].get()).as("runs of key %d", k).isEqualTo(1);
                String prefix = "charged-" + k + "-";
                List<Result<String>> forKey = all.stream().filter(r -> r.value().startsWith(prefix)).toList();
                assertThat(forKey).hasSize(threads);
                assertThat(forKey.stream().map(Result::value).distinct()).hasSize(1);
                assertThat(forKey.stream().filter(r -> !r.replayed())).hasSize(1);
                assertThat(forKey).allSatisfy(r -> assertThat(r.stored()).isTrue());
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
            clients.forEach(DynamoDbClient::close);
        }
    }

    @Test
    void aStaleWorkersCompleteAfterATakeoverIsRejectedAndTheTakersOutcomeStays() {
        MutableClock clock = new MutableClock();
        Duration lease = Duration.ofSeconds(10);
        IdempotencyEngine first = IdempotencyEngine.builder().store(store(DynamoDbStoreFixture.client(), clock))
                .clock(clock).lease(lease).ttl(Duration.ofHours(1)).build();
        IdempotencyEngine second = IdempotencyEngine.builder().store(store(DynamoDbLocal.client(), clock))
                .clock(clock).lease(lease).ttl(Duration.ofHours(1)).build();
        AtomicInteger runs = new AtomicInteger();
        Result<?>[] takeover = new Result<?>[1];

        assertThatThrownBy(() -> first.execute(key("k"), REQUEST, String.class, ctx -> {
            runs.incrementAndGet();
            // The first worker stalls past its lease; a retry elsewhere takes over and finishes.
            clock.advance(lease.plusMillis(1));
            takeover[0] = second.execute(key("k"), REQUEST, String.class, ctx2 -> {
                runs.incrementAndGet();
                assertThat(ctx2.attempt()).isEqualTo(2);
                assertThat(ctx2.fencingToken()).isNotEqualTo(ctx.fencingToken());
                return "from-the-taker";
            });
            return "from-the-stale-worker";
        })).isInstanceOf(LeaseLostException.class);

        assertThat(runs.get()).isEqualTo(2);
        assertThat(takeover[0].value()).isEqualTo("from-the-taker");
        assertThat(takeover[0].stored()).isTrue();
        Result<String> replay = first.execute(key("k"), REQUEST, String.class, ctx -> {
            throw new AssertionError("must replay, not run");
        });
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo("from-the-taker");
        assertThat(replay.attempt()).isEqualTo(2);
    }

    @Test
    void anOutcomeTooLargeForAnItemIsKeptAsANotStoredMarkerAndNeverRunsAgain() {
        DynamoDbIdempotencyStore store = store(DynamoDbStoreFixture.client(), java.time.Clock.systemUTC());
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        String huge = "x".repeat(DynamoDbIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES + 1);
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> engine.execute(key("big"), REQUEST, String.class, ctx -> {
                runs.incrementAndGet();
                return huge;
            })).isInstanceOf(dev.idem.engine.OutcomeNotStoredException.class);
        }
        // After the work ran the engine never frees the key: every retry gets the same typed error.
        assertThat(store.find(key("big")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void whenDynamoDbCannotBeReachedTheWorkDoesNotRun() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AtomicInteger runs = new AtomicInteger();
        try (DynamoDbClient dead = DynamoDbLocal.builder().endpointOverride(URI.create("http://127.0.0.1:" + port))
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD)).build()) {
            IdempotencyEngine engine = IdempotencyEngine.builder().store(store(dead, java.time.Clock.systemUTC()))
                    .build();
            assertThatThrownBy(() -> engine.execute(key("k"), REQUEST, String.class, ctx -> {
                runs.incrementAndGet();
                return "never";
            })).isInstanceOfSatisfying(StoreUnavailableException.class, e -> {
                assertThat(e.retryable()).isTrue();
                assertThat(e.httpStatus()).isEqualTo(503);
            });
        }
        assertThat(runs.get()).isZero();
    }
}
