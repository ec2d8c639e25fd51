package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.embedded.RedisServer;

/**
 * A redis-server killed (SIGKILL) while the engine is in use: calls fail fast with
 * {@link StoreUnavailableException} and the work does not run; after the server comes
 * back on the same port the engine carries on through the same client (a Jedis pool replaces
 * its broken connections; Lettuce reconnects by itself). Each test owns its server, so killing
 * it disturbs no other test.
 */
@Timeout(120)
class RedisKilledMidRunTest {
    private static final Duration RECOVERY = Duration.ofSeconds(20);

    private RedisServer server;
    private RedisScriptClient client;

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null && server.isActive()) {
            server.stop();
        }
    }

    private IdempotencyEngine engineOn(boolean appendOnlyAlways, Client kind) {
        int port = EmbeddedRedis.freePort();
        server = appendOnlyAlways
                ? EmbeddedRedis.server(port, true, "appendonly yes", "appendfsync always")
                : EmbeddedRedis.server(port, true);
        client = kind.ownClient(port);
        return IdempotencyEngine.builder()
                .store(RedisIdempotencyStore.create(client))
                .lease(Duration.ofSeconds(30))
                .ttl(Duration.ofMinutes(10))
                .build();
    }

    private static IdempotencyKey key(String token) {
        return IdempotencyKey.of("killed-" + UUID.randomUUID(), "charge", token);
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void killedServerFailsCallsWithoutRunningTheWorkAndTheEngineCarriesOnAfterRestart(Client kind) throws Exception {
        IdempotencyEngine engine = engineOn(true, kind);
        AtomicInteger firstRuns = new AtomicInteger();
        AtomicInteger secondRuns = new AtomicInteger();
        IdempotencyKey first = key("k1");
        IdempotencyKey second = key("k2");
        Map<String, Object> request = Map.of("amount", 10);

        Result<String> done = engine.execute(first, request, String.class, ctx -> "ok-" + firstRuns.incrementAndGet());
        assertThat(done.stored()).isTrue();

        server.stop();

        assertThatThrownBy(() -> engine.execute(first, request, String.class, ctx -> "ok-" + firstRuns.incrementAndGet()))
                .isInstanceOf(StoreUnavailableException.class)
                .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
        assertThatThrownBy(() -> engine.execute(second, request, String.class,
                ctx -> "ok-" + secondRuns.incrementAndGet()))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(firstRuns).hasValue(1);
        assertThat(secondRuns).hasValue(0);

        startAgain();

        Result<String> afterRestart = untilReachable(() -> engine.execute(second, request, String.class,
                ctx -> "ok-" + secondRuns.incrementAndGet()));
        assertThat(afterRestart.value()).isEqualTo("ok-1");
        assertThat(afterRestart.stored()).isTrue();
        assertThat(secondRuns).hasValue(1);

        // appendfsync always: the completed record survived the kill, so this is a replay.
        Result<String> replay = engine.execute(first, request, String.class, ctx -> "ok-" + firstRuns.incrementAndGet());
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo("ok-1");
        assertThat(firstRuns).hasValue(1);
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void serverKilledWhileTheWorkRunsNeverLetsADuplicateRunIt(Client kind) throws Exception {
        IdempotencyEngine engine = engineOn(true, kind);
        IdempotencyKey k = key("k3");
        Map<String, Object> request = Map.of("amount", 5);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch killed = new CountDownLatch(1);

        CompletableFuture<Result<String>> holder = CompletableFuture.supplyAsync(() ->
                engine.execute(k, request, String.class, ctx -> {
                    runs.incrementAndGet();
                    working.countDown();
                    assertThat(killed.await(30, TimeUnit.SECONDS)).isTrue();
                    return "done";
                }));
        assertThat(working.await(30, TimeUnit.SECONDS)).isTrue();
        server.stop();
        killed.countDown();

        // The work ran once; its outcome could not be stored, which the result says.
        Result<String> result = holder.get(60, TimeUnit.SECONDS);
        assertThat(result.value()).isEqualTo("done");
        assertThat(result.stored()).isFalse();

        assertThatThrownBy(() -> engine.execute(k, request, String.class, ctx -> "dup-" + runs.incrementAndGet()))
                .isInstanceOf(StoreUnavailableException.class);

        startAgain();

        // The claim survived the kill (AOF) and its lease is still live: a duplicate is told to wait.
        assertThatThrownBy(() -> untilReachable(() ->
                engine.execute(k, request, String.class, ctx -> "dup-" + runs.incrementAndGet())))
                .isInstanceOf(RequestInProgressException.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void restartWithoutPersistenceForgetsStoredOutcomes() throws Exception {
        // Characterizes the durability caveat the README documents: no AOF, no RDB, no replica.
        IdempotencyEngine engine = engineOn(false, Client.JEDIS);
        IdempotencyKey k = key("k4");
        AtomicInteger runs = new AtomicInteger();
        engine.execute(k, Map.of("r", 1), String.class, ctx -> "run-" + runs.incrementAndGet());

        server.stop();
        startAgain();

        Result<String> again = untilReachable(() -> engine.execute(k, Map.of("r", 1), String.class,
                ctx -> "run-" + runs.incrementAndGet()));
        assertThat(again.replayed()).isFalse();
        assertThat(again.value()).isEqualTo("run-2");
    }

    /**
     * Starts the stopped server again on its port. A killed redis-server can hold the port for a
     * moment after {@code stop()} returns (the process is not reaped yet on a loaded machine), so
     * a refused bind is retried, bounded.
     */
    private void startAgain() throws Exception {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        while (true) {
            try {
                server.start();
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Repeats {@code call} while it fails with {@link StoreUnavailableException} (pooled
     * connections broken by a kill are discarded one failure at a time, a cluster client works off
     * an old view of the slots), bounded.
     */
    static <T> T untilReachable(Supplier<T> call) throws InterruptedException {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        while (true) {
            try {
                return call.get();
            } catch (StoreUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
