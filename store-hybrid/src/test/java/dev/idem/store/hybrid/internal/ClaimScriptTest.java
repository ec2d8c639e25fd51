package dev.idem.store.hybrid.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.EmbeddedRedis;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * The claim script on its own, against a real Redis on its own clock: what a prediction's deadlines
 * are counted from (the sender's reading of the clock, not the script's run), and a script sent
 * twice for one claim.
 */
class ClaimScriptTest {
    private static final long MARGIN = 100;
    private static final byte[] FP = "fp".getBytes(StandardCharsets.UTF_8);

    private static RedisServer server;
    private static RedisClient redis;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final GateClock clock = new GateClock(null, nanos::get);
    private final GateKeys keys = new GateKeys("idem:gate-test:");
    private final IdempotencyKey key = IdempotencyKey.of("script-" + UUID.randomUUID(), "charge", "k");

    @BeforeAll
    static void start() {
        int port = EmbeddedRedis.freePort();
        server = EmbeddedRedis.server(port, true);
        redis = RedisClient.builder().hostAndPort(EmbeddedRedis.HOST, port)
                .clientConfig(EmbeddedRedis.clientConfig()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
        server.stop();
    }

    private Gate gate() {
        return new Gate(JedisScriptClient.of(redis), keys, clock, MARGIN, 30_000, 60_000, 64 * 1024);
    }

    /** Redis' clock now, ms. */
    private static long redisNow() {
        return (Long) redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)");
    }

    @Test
    void withoutAReadingOfTheClockToSendNothingIsPredicted() {
        GateReply<ClaimAction> r = gate().claim(key, FP, 7, 30_000, 60_000, "n1");
        assertThat(r.action()).as("the database decides").isEqualTo(ClaimAction.ASK_DATABASE);
    }

    @Test
    void aPredictionsLeaseStartsAtTheSendersReadingNotWhenTheScriptRuns() {
        // The sender last heard Redis' clock 2 s ago: as if its script had been held up that long.
        clock.observed(redisNow() - 2_000);
        GateReply<ClaimAction> r = gate().claim(key, FP, 7, 30_000, 60_000, "n1");
        assertThat(r.action()).isEqualTo(ClaimAction.PREDICTED);
        assertThat(r.lease()).as("lease from the send").isLessThanOrEqualTo(r.now() - 2_000 + 30_000);
        assertThat(r.created()).isLessThanOrEqualTo(r.now() - 2_000);
    }

    @Test
    void aScriptThatRunsAfterTheLeaseItWouldPredictSendsTheClaimToTheDatabase() {
        clock.observed(redisNow() - 2_000);
        GateReply<ClaimAction> r = gate().claim(key, FP, 7, 1_500, 60_000, "n1");
        assertThat(r.action()).isEqualTo(ClaimAction.ASK_DATABASE);
        assertThat(gate().claim(key, FP, 8, 30_000, 60_000, "n2").action())
                .as("counted as a claim in flight: nobody predicts meanwhile").isEqualTo(ClaimAction.ASK_DATABASE);
    }

    @Test
    void aScriptSentTwiceForOneClaimCarriesOnWithItsOwnPrediction() {
        clock.observed(redisNow());
        GateReply<ClaimAction> first = gate().claim(key, FP, 7, 30_000, 60_000, "n1");
        assertThat(first.action()).isEqualTo(ClaimAction.PREDICTED);
        GateReply<ClaimAction> again = gate().claim(key, FP, 7, 30_000, 60_000, "n2");
        assertThat(again.action()).as("not a 409 about itself").isEqualTo(ClaimAction.PREDICTED);
        assertThat(again.nonce()).as("the prediction already written").isEqualTo("n1");
        assertThat(gate().claim(key, FP, 8, 30_000, 60_000, "n3").action()).as("a duplicate: 409 from the gate")
                .isEqualTo(ClaimAction.ANSWER);
    }
}
