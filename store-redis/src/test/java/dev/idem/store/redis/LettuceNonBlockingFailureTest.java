package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.tck.NonBlockingView;
import dev.idem.testsupport.redis.ReplyDroppingProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * The Lettuce store's non-blocking form under the failures its blocking form is tested with: the
 * script cache flushed while asynchronous work runs (NOSCRIPT, reloaded and run once more), a
 * connection that dies after the script ran and before its reply, a slot redirected back and
 * forth between masters. A typed store error through the stage or the right answer, never a
 * second run of the work. (A closed client: {@link LettuceClosedClientTest}; the whole store kit
 * and the engine's fault injection through the form: the {@code Lettuce*NonBlocking*} kit tests.)
 */
@Timeout(120)
class LettuceNonBlockingFailureTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final String scope = "nb-failure-" + UUID.randomUUID();

    private IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "op", token);
    }

    private static IdempotencyEngine engine(RedisIdempotencyStore store) {
        assertThat(store.nonBlocking()).as("the Lettuce store's non-blocking form").isPresent();
        return IdempotencyEngine.builder().store(store).lease(LEASE).ttl(TTL).build();
    }

    @ParameterizedTest(name = "cluster: {0}")
    @ValueSource(booleans = {false, true})
    void theScriptCacheFlushedWhileAsyncWorkRunsIsReloadedWithoutASecondRun(boolean cluster) throws Exception {
        List<Integer> ports = cluster ? EmbeddedRedis.clusterPorts() : List.of(EmbeddedRedis.standalonePort());
        IdempotencyEngine engine = engine(RedisIdempotencyStore.create(Client.LETTUCE.on(cluster, 0)));
        IdempotencyEngine other = engine(RedisIdempotencyStore.create(Client.LETTUCE.on(cluster, 1)));
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            IdempotencyKey k = key("flush-" + i);
            Result<String> first = engine.executeAsync(k, Map.of("i", i), String.class, ctx -> {
                for (int port : ports) {
                    try (Jedis node = EmbeddedRedis.admin(port)) {
                        node.scriptFlush();
                    }
                }
                return CompletableFuture.completedFuture("done-" + runs.incrementAndGet());
            }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(first.stored()).isTrue();
            Result<String> replay = other.executeAsync(k, Map.of("i", i), String.class,
                    ctx -> CompletableFuture.completedFuture("again-" + runs.incrementAndGet()))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(first.value());
        }
        assertThat(runs).hasValue(3);
    }

    @Test
    void aCompletionWhoseReplyIsLostRunsTheAsyncWorkOnceAndTheDuplicateReplaysIt() throws Exception {
        try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(EmbeddedRedis.standalonePort());
                RedisIdempotencyStore store = RedisIdempotencyStore.create(Client.LETTUCE.ownClient(proxy.port()));
                RedisIdempotencyStore observer = RedisIdempotencyStore.create(Client.LETTUCE.standalone(1))) {
            IdempotencyEngine engine = engine(store);
            // Every script cached and the connection open, so the reply dropped is the completion's.
            engine.execute(key("warm"), Map.of(), String.class, ctx -> "warm");
            IdempotencyKey k = key("engine");
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch[] dropped = new CountDownLatch[1];
            CompletableFuture<Result<String>> first = engine.executeAsync(k, Map.of("a", 1), String.class, ctx -> {
                // The next reply is the completion's.
                dropped[0] = proxy.dropNextReply();
                return CompletableFuture.completedFuture("charged-" + runs.incrementAndGet());
            });
            String answer;
            try {
                answer = first.get(WAIT.toSeconds(), TimeUnit.SECONDS).value();
            } catch (java.util.concurrent.ExecutionException e) {
                // Lettuce re-sends the completion after reconnecting (answered as the first) or reports the loss.
                assertThat(e.getCause()).isInstanceOf(StoreUnavailableException.class);
                answer = null;
            }
            ReplyDroppingProxy.awaitDropped(dropped[0]);
            assertThat(observer.find(k).orElseThrow().state()).as("the landed completion")
                    .isEqualTo(RecordState.COMPLETED);
            Result<String> duplicate = engine(observer).executeAsync(k, Map.of("a", 1), String.class,
                    ctx -> CompletableFuture.completedFuture("charged-" + runs.incrementAndGet()))
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(duplicate.replayed()).isTrue();
            assertThat(duplicate.value()).isEqualTo("charged-1");
            if (answer != null) {
                assertThat(answer).isEqualTo("charged-1");
            }
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aRedirectStormThroughTheFormIsARetryableErrorThatWritesNothing() throws InterruptedException {
        RedisClientFailureTest.redirectStorm(scope,
                NonBlockingView.of(RedisIdempotencyStore.create(Client.LETTUCE.cluster(0))));
    }
}
