package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;

/**
 * Many threads spread over several engines, each engine on its own Redis client (as
 * separate processes would be), Jedis and Lettuce side by side on one deployment, send the same
 * request under one key at once: the work runs exactly once and every caller gets its result. The work holds its lease until every
 * other caller has actually seen the key in progress, so the duplicates really overlap.
 */
@Timeout(120)
class RedisEngineConcurrencyTest {
    private static final int THREADS = 24;
    private static final int ROUNDS = 3;
    private static final List<RedisScriptClient> OWN_CLIENTS = new ArrayList<>();

    @AfterAll
    static void closeClients() {
        OWN_CLIENTS.forEach(RedisScriptClient::close);
    }

    @Test
    void standaloneEnginesOnSeparateClientsRunTheWorkOnce() throws Exception {
        runRace(List.of(
                own(Client.JEDIS.ownClient(EmbeddedRedis.standalonePort())),
                own(Client.LETTUCE.ownClient(EmbeddedRedis.standalonePort())),
                own(Client.JEDIS.ownClient(EmbeddedRedis.standalonePort()))));
    }

    @Test
    void clusterEnginesOnSeparateClientsRunTheWorkOnce() throws Exception {
        runRace(List.of(
                own(LettuceScriptClient.owning(LettuceClients.clusterClient(EmbeddedRedis.clusterPorts()))),
                own(JedisScriptClient.owning(EmbeddedRedis.clusterClient(EmbeddedRedis.clusterPorts()))),
                own(LettuceScriptClient.owning(LettuceClients.clusterClient(EmbeddedRedis.clusterPorts())))));
    }

    private static RedisScriptClient own(RedisScriptClient c) {
        synchronized (OWN_CLIENTS) {
            OWN_CLIENTS.add(c);
        }
        return c;
    }

    private void runRace(List<RedisScriptClient> clients) throws Exception {
        String scope = "engine-" + UUID.randomUUID();
        for (int round = 0; round < ROUNDS; round++) {
            raceOnOneKey(clients, IdempotencyKey.of(scope, "charge", "order-" + round));
        }
    }

    private void raceOnOneKey(List<RedisScriptClient> clients, IdempotencyKey key) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch othersSawIt = new CountDownLatch(THREADS - 1);
        Set<Thread> conflicted = ConcurrentHashMap.newKeySet();
        List<IdempotencyEngine> engines = new ArrayList<>();
        for (RedisScriptClient client : clients) {
            engines.add(IdempotencyEngine.builder()
                    .store(RedisIdempotencyStore.create(client))
                    .lease(Duration.ofSeconds(20))
                    .ttl(Duration.ofMinutes(5))
                    .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(60)))
                    .listener(e -> {
                        if (e.type() == IdempotencyEvent.Type.IN_PROGRESS_CONFLICT
                                && conflicted.add(Thread.currentThread())) {
                            othersSawIt.countDown();
                        }
                    })
                    .build());
        }
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Result<String>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                IdempotencyEngine engine = engines.get(t % engines.size());
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return engine.execute(key, Map.of("amount", 10), String.class, ctx -> {
                        int n = runs.incrementAndGet();
                        // Hold the lease until every duplicate has hit the in-progress record.
                        othersSawIt.await(60, TimeUnit.SECONDS);
                        return "charged-run-" + n;
                    });
                }));
            }
            List<Result<String>> results = new ArrayList<>();
            for (Future<Result<String>> f : futures) {
                results.add(f.get(90, TimeUnit.SECONDS));
            }
            assertThat(runs).as("executions of %s", key).hasValue(1);
            assertThat(othersSawIt.getCount()).as("duplicates that overlapped the execution").isZero();
            assertThat(results).hasSize(THREADS)
                    .allSatisfy(r -> assertThat(r.value()).isEqualTo("charged-run-1"));
            assertThat(results.stream().filter(r -> !r.replayed())).hasSize(1);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }
}
