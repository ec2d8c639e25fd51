package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * Redis down, stalled and back, with real server clocks (Redis {@code TIME}, the database's):
 * every call is answered by the database alone while the gate fails, the events say so, and
 * the gate is used again once it answers, without a restart of anything but Redis.
 */
@Timeout(90)
class GateDegradationTest {
    private final int port = GateRedis.freePort();
    private final RecordingListener events = new RecordingListener();
    private final String scope = "degrade-" + UUID.randomUUID();
    private final AtomicInteger runs = new AtomicInteger();
    private RedisServer redis;
    private RedisClient client;
    private StatementCounter db;
    private IdempotencyEngine engine;

    @BeforeEach
    void setUp() {
        redis = GateRedis.start(port);
        client = GateRedis.client(port, 300);
        db = new StatementCounter(Databases.POSTGRES.dataSource());
        HybridIdempotencyStore store = HybridIdempotencyStore.builder(JedisScriptClient.of(client),
                JdbcIdempotencyStore.builder(db.dataSource()).build())
                .retryInterval(Duration.ofMillis(50)).listener(events).build();
        engine = IdempotencyEngine.builder().store(store).lease(Duration.ofMinutes(1)).ttl(Duration.ofMinutes(10))
                .build();
    }

    @AfterEach
    void tearDown() throws Exception {
        client.close();
        redis.stop();
    }

    private Result<String> call(String k) {
        return engine.execute(IdempotencyKey.of(scope, "op", k), Map.of("k", k), String.class, ctx -> {
            runs.incrementAndGet();
            return "done " + k;
        });
    }

    /** Calls until the gate answered again (bounded), as a client's retries would. */
    private void untilTheGateIsUp() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (events.count(Type.GATE_UP) == 0 && System.nanoTime() < deadline) {
            call("probe");
        }
        assertThat(events.count(Type.GATE_UP)).as("the gate is used again").isPositive();
    }

    @Test
    void whileRedisIsDownTheDatabaseAnswersAloneAndOnceBackTheGateIsUsedAgain() throws Exception {
        assertThat(call("before").replayed()).isFalse();
        assertThat(call("before").replayed()).isTrue();

        LogCapture log = new LogCapture();
        redis.stop();
        assertThat(call("before").value()).isEqualTo("done before");
        assertThat(call("during").replayed()).isFalse();
        assertThat(call("during").replayed()).isTrue();
        assertThat(call("during").value()).isEqualTo("done during");
        assertThat(events.count(Type.GATE_DOWN)).isEqualTo(1);
        assertThat(events.count(Type.GATE_FAILED)).isPositive();
        assertThat(events.events).filteredOn(e -> e.type() == Type.GATE_DOWN).first()
                .satisfies(e -> assertThat(e.cause()).isNotNull());

        // Calls go on while Redis stays down: the breaker tries it again after each retry interval.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (events.count(Type.GATE_FAILED) < 3 && System.nanoTime() < deadline) {
            assertThat(call("during").value()).isEqualTo("done during");
        }
        redis = GateRedis.start(port);
        untilTheGateIsUp();
        log.close();
        // One line when the gate went down and one when it came back, however many calls failed in
        // between; the stack traces only at DEBUG.
        assertThat(events.count(Type.GATE_FAILED)).isGreaterThanOrEqualTo(3);
        assertThat(log.at(Level.WARNING)).extracting(LogRecord::getMessage).satisfiesExactly(
                down -> assertThat(down).startsWith("Redis gate is down ("),
                up -> assertThat(up).startsWith("Redis gate answers again after"));
        assertThat(log.at(Level.WARNING)).allSatisfy(r -> assertThat(r.getThrown()).isNull());
        assertThat(log.records).filteredOn(r -> r.getThrown() != null)
                .allSatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.FINE)).isNotEmpty();
        // Redis came back empty: the first replay of each key reads the database, then the gate answers.
        assertThat(call("during").value()).isEqualTo("done during");
        long before = db.executed();
        assertThat(call("during").value()).isEqualTo("done during");
        assertThat(call("before").value()).isEqualTo("done before");
        assertThat(call("before").value()).isEqualTo("done before");
        assertThat(db.executed() - before).as("statements: only the first replay of 'before' after the restart")
                .isEqualTo(1);
        assertThat(runs).as("each key ran once, probes included").hasValue(3);
    }

    @Test
    void aStalledRedisCostsOneTimeoutThenIsSkippedUntilItAnswers() {
        call("k");
        call("k");
        // CLIENT PAUSE holds every client's commands for 2 s, like a stalled or overloaded Redis.
        try (Jedis admin = new Jedis(GateRedis.HOST, port)) {
            admin.clientPause(2000, ClientPauseMode.ALL);
        }
        for (int i = 0; i < 1000 && events.count(Type.GATE_DOWN) == 0; i++) {
            assertThat(call("k").value()).isEqualTo("done k");
        }
        assertThat(events.count(Type.GATE_DOWN)).isEqualTo(1);
        assertThat(call("k2").replayed()).isFalse();
        assertThat(call("k2").value()).isEqualTo("done k2");
        untilTheGateIsUp();
        call("k2");
        long before = db.executed();
        assertThat(call("k2").value()).isEqualTo("done k2");
        assertThat(db.executed()).isEqualTo(before);
        assertThat(runs).hasValue(3);
    }

    @Test
    void aListenerThatThrowsChangesNothing() {
        HybridIdempotencyStore store = HybridIdempotencyStore.builder(JedisScriptClient.of(client),
                JdbcIdempotencyStore.builder(db.dataSource()).build()).listener(e -> {
                    throw new IllegalStateException("broken metrics");
                }).build();
        IdempotencyEngine other = IdempotencyEngine.builder().store(store).lease(Duration.ofMinutes(1))
                .ttl(Duration.ofMinutes(10)).build();
        IdempotencyKey k = IdempotencyKey.of(scope, "op", "listener");
        assertThat(other.execute(k, "{}", String.class, ctx -> "once").replayed()).isFalse();
        assertThat(other.execute(k, "{}", String.class, ctx -> "twice").value()).isEqualTo("once");
    }
}
