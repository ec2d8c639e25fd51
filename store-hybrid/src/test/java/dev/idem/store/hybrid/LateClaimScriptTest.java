package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.hybrid.internal.GateKeys;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;

/**
 * A claim script that runs late, on real server clocks (Redis {@code TIME}, the database's). Node
 * A's claim is held up on its way to Redis (a {@link DelayingProxy}, as a stalled Redis or network
 * would); A's client gives up after 250 ms and the database grants the claim; then A dies. The
 * script runs after the stall, for nobody: after the lease A asked for would have ended (3 s late,
 * a 1.5 s lease), or within it (1 s late, a 3 s lease: it then writes a prediction). Whatever it
 * writes, once the database's lease has lapsed node B must be let take the key over: the gate may
 * refuse B (409) only within the lease the database granted, counted from when A's claim was sent,
 * never from when the script happened to run.
 *
 * <p>Every wait is bounded and nothing depends on how fast the machine is: B asks only once A's
 * database lease has surely lapsed (its claim returned more than a lease ago) and the late script
 * has surely run (its write is in Redis); a slower machine only makes B ask later.
 */
@Timeout(60)
class LateClaimScriptTest {
    private static final Duration TTL = Duration.ofMinutes(1);
    private static final byte[] FP = "charge 10".getBytes(StandardCharsets.UTF_8);

    private final DelayingProxy proxy = new DelayingProxy(GateRedis.Shared.PORT);
    private final RedisClient throughProxy = GateRedis.client(proxy.port(), 250);
    private final RedisClient direct = GateRedis.client(GateRedis.Shared.PORT, 2000);
    private final RecordingListener eventsOfA = new RecordingListener();
    private final RecordingListener eventsOfB = new RecordingListener();
    private final String scope = "late-" + UUID.randomUUID();

    @AfterEach
    void tearDown() {
        throughProxy.close();
        direct.close();
        proxy.close();
    }

    private HybridIdempotencyStore node(RedisClient gate, RecordingListener events) {
        return HybridIdempotencyStore.builder(JedisScriptClient.of(gate), JdbcIdempotencyStore.builder(Databases.POSTGRES.dataSource())
                .build()).listener(events).build();
    }

    @ParameterizedTest(name = "{0} ms late, lease {1} ms")
    @CsvSource({"3000, 1500", "1000, 3000"})
    void aLateClaimScriptNeverRefusesATakeoverPastTheDatabasesLease(long stallMs, long leaseMs) {
        Duration stall = Duration.ofMillis(stallMs);
        Duration lease = Duration.ofMillis(leaseMs);
        HybridIdempotencyStore a = node(throughProxy, eventsOfA);
        HybridIdempotencyStore b = node(direct, eventsOfB);
        IdempotencyKey k = IdempotencyKey.of(scope, "charge", "k");
        // A has heard from the gate before (as any node that has served a request has).
        a.claim(IdempotencyKey.of(scope, "charge", "warm-up"), FP, 1, lease, TTL);

        proxy.delayRequests(stall);
        ClaimResult claimed = a.claim(k, FP, 2, lease, TTL);
        long claimReturned = System.nanoTime();
        assertThat(claimed.status()).as("the database grants A's claim").isEqualTo(Status.ACQUIRED);
        assertThat(eventsOfA.count(Type.GATE_FAILED)).as("A's gate call timed out").isEqualTo(1);

        awaitTheLateScript(k);
        long leaseLapsed = claimReturned + lease.toNanos();
        // Real time is the subject here (a lease on server clocks): let it pass.
        for (long left = leaseLapsed - System.nanoTime(); left > 0; left = leaseLapsed - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
        ClaimResult taken = b.claim(k, FP, 3, lease, TTL);
        assertThat(taken.status()).as("B after A's database lease lapsed: the database lets it take over, so"
                + " must the gate (%s)", taken.record()).isEqualTo(Status.TAKEN_OVER);
        assertThat(taken.record().fencingToken()).isEqualTo(3);
        assertThat(eventsOfB.count(Type.GATE_FAILED)).as("B's gate calls all answered").isZero();
    }

    /** Until the held-back script has run in Redis: it writes the key's gate record whatever it decides. */
    private void awaitTheLateScript(IdempotencyKey k) {
        byte[] gateKey = new GateKeys(HybridIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(k);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!direct.exists(gateKey)) {
            assertThat(System.nanoTime() - deadline).as("the late script ran within 30 s").isNegative();
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }
    }
}
