package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import dev.idem.testsupport.redis.ReplyDroppingProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gate connection that dies after a gate script ran and before its reply arrived (a proxy cuts
 * it), at each gate call of a request's life: the claim that predicts, the completion's notice,
 * a duplicate answered from the gate. Jedis reports the lost reply and the store carries on with
 * the database; Lettuce re-sends the script, which then runs twice. Either way the work runs once,
 * its caller gets the outcome, and every later caller of the key gets that outcome or, while the
 * gate still shows a prediction it never heard the end of, a 409 (at most one lease long), never
 * another outcome.
 */
@Timeout(180)
class GateLandedWriteTest {
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static ReplyDroppingProxy proxy;

    @BeforeAll
    static void startProxy() {
        proxy = new ReplyDroppingProxy(GateRedis.Shared.PORT);
    }

    @AfterAll
    static void stopProxy() throws IOException {
        proxy.close();
    }

    private static RedisScriptClient throughProxy(boolean lettuce) {
        if (lettuce) {
            return LettuceScriptClient.owning(RedisClient.create(RedisURI.builder().withHost(GateRedis.HOST)
                    .withPort(proxy.port()).withTimeout(Duration.ofSeconds(2)).build()));
        }
        return JedisScriptClient.owning(GateRedis.client(proxy.port(), 2000));
    }

    private static IdempotencyEngine engine(RedisScriptClient gate, javax.sql.DataSource db) {
        return IdempotencyEngine.builder()
                // After a failed gate call the gate is tried again at the next call, not a second later.
                .store(HybridIdempotencyStore.builder(gate, JdbcIdempotencyStore.builder(db).build())
                        .retryInterval(Duration.ofMillis(1)).build())
                .lease(LEASE).ttl(Duration.ofMinutes(10)).build();
    }

    /** Repeats a duplicate while it is told the key is in progress, for at most two leases. */
    private static <T> T answered(Supplier<T> call) throws InterruptedException {
        long deadline = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
        while (true) {
            try {
                return call.get();
            } catch (RequestInProgressException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @ParameterizedTest(name = "lettuce={0}")
    @ValueSource(booleans = {false, true})
    void everyGateCallWhoseReplyIsLostLeavesOneRunAndOneAnswer(boolean lettuce) throws Exception {
        IdempotencyEngine proxied = engine(throughProxy(lettuce), Databases.POSTGRES.dataSource());
        IdempotencyEngine direct = engine(JedisScriptClient.of(GateRedis.Shared.B), Databases.POSTGRES.otherDataSource());
        String scope = "gate-landed-" + UUID.randomUUID();
        // Warm up: the scripts are cached and the proxied connection is open.
        proxied.execute(IdempotencyKey.of(scope, "op", "warm"), Map.of("w", 1), String.class, c -> "w");
        proxied.execute(IdempotencyKey.of(scope, "op", "warm"), Map.of("w", 1), String.class, c -> "w");

        for (String lost : new String[] {"claim", "completion", "duplicate"}) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", lost);
            AtomicInteger runs = new AtomicInteger();
            AtomicReference<CountDownLatch> dropped = new AtomicReference<>();
            if (lost.equals("claim")) {
                dropped.set(proxy.dropNextReply());
            }
            Result<String> first = proxied.execute(k, Map.of("k", lost), String.class, c -> {
                if (lost.equals("completion")) {
                    dropped.set(proxy.dropNextReply());
                }
                return lost + "-" + runs.incrementAndGet();
            });
            if (dropped.get() != null) {
                ReplyDroppingProxy.awaitDropped(dropped.get());
                // The next call opens the proxied connection again, so no later handshake reply is dropped.
                proxied.execute(IdempotencyKey.of(scope, "op", "reconnect-" + lost), Map.of(), String.class, c -> "r");
            }
            if (lost.equals("duplicate")) {
                CountDownLatch d = proxy.dropNextReply();
                Result<String> dup = proxied.execute(k, Map.of("k", lost), String.class,
                        c -> lost + "-" + runs.incrementAndGet());
                ReplyDroppingProxy.awaitDropped(d);
                assertThat(dup.value()).isEqualTo(first.value());
            }
            assertThat(first.value()).isEqualTo(lost + "-1");
            Result<String> fromOther = answered(() -> direct.execute(k, Map.of("k", lost), String.class,
                    c -> lost + "-" + runs.incrementAndGet()));
            Result<String> again = answered(() -> proxied.execute(k, Map.of("k", lost), String.class,
                    c -> lost + "-" + runs.incrementAndGet()));
            assertThat(fromOther.value()).as("%s lost", lost).isEqualTo(first.value());
            assertThat(again.value()).as("%s lost", lost).isEqualTo(first.value());
            assertThat(runs).as("%s lost", lost).hasValue(1);
        }
    }
}
