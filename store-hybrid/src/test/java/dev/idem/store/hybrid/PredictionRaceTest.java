package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The window between a prediction and its database claim, held open on purpose: the claim's
 * database statement is blocked on a latch after the gate has written the prediction. A
 * duplicate is told "in progress" by the gate in that window; everything else the store answers
 * must agree with that answer, although the database has no record yet: a read answers the
 * predicted record, and a completion with the predicted token waits for the claim to land and
 * then succeeds (refusing it would say the token was never current).
 */
@Timeout(60)
class PredictionRaceTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final CountDownLatch claimSent = new CountDownLatch(1);
    private final CountDownLatch letClaimThrough = new CountDownLatch(1);
    private volatile boolean holdClaims = true;

    @Test
    void answersGivenFromAPredictionAreKeptWhileItsClaimIsOnItsWay() throws Exception {
        HybridIdempotencyStore holder = HybridIdempotencyStore.builder(JedisScriptClient.of(GateRedis.Shared.A),
                JdbcIdempotencyStore.builder(blockingClaims(Databases.POSTGRES.dataSource())).clock(clock).build())
                .clock(clock).build();
        RecordingListener events = new RecordingListener();
        StatementCounter db = new StatementCounter(Databases.POSTGRES.otherDataSource());
        HybridIdempotencyStore other = HybridIdempotencyStore.builder(JedisScriptClient.of(GateRedis.Shared.B),
                JdbcIdempotencyStore.builder(db.dataSource()).clock(clock).build()).clock(clock).listener(events)
                .build();
        IdempotencyKey k = IdempotencyKey.of("race-" + UUID.randomUUID(), "charge", "k");
        byte[] fp = "a".getBytes(StandardCharsets.UTF_8);

        CompletableFuture<ClaimResult> claim = CompletableFuture.supplyAsync(() -> holder.claim(k, fp, 7, LEASE, TTL));
        assertThat(claimSent.await(30, TimeUnit.SECONDS)).as("the claim reached the database").isTrue();

        long before = db.executed();
        ClaimResult dup = other.claim(k, fp, 8, LEASE, TTL);
        assertThat(dup.status()).isEqualTo(ClaimResult.Status.EXISTING);
        assertThat(dup.record().fencingToken()).as("the gate's answer: token 7 is in progress").isEqualTo(7);
        assertThat(db.executed()).isEqualTo(before);

        StoredRecord found = other.find(k).orElseThrow();
        assertThat(found.state()).as("a read agrees with that answer").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(found.fencingToken()).isEqualTo(7);

        long sent = db.executed();
        CompletableFuture<Boolean> complete = CompletableFuture.supplyAsync(
                () -> other.complete(k, 7, "done".getBytes(StandardCharsets.UTF_8), TTL));
        // The database refuses token 7 (no record yet). Returning that refusal would contradict the
        // answer above: the completion must wait for the claim instead.
        assertThat(db.awaitExecuted(sent + 1, 30_000)).as("the completion reached the database").isTrue();
        assertThat(complete).isNotDone();
        holdClaims = false;
        letClaimThrough.countDown();
        assertThat(claim.get(30, TimeUnit.SECONDS).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(complete.get(30, TimeUnit.SECONDS)).as("the completion after the claim landed").isTrue();
        assertThat(other.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    /** A DataSource whose claim statements (the upsert) wait on the latch while claims are held. */
    private DataSource blockingClaims(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection ? connection((Connection) result) : result;
                });
    }

    private Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(c, method, args);
                    boolean isClaim = method.getName().equals("prepareStatement") && args != null
                            && args[0] instanceof String && ((String) args[0]).contains("ON CONFLICT");
                    if (isClaim && result instanceof PreparedStatement) {
                        return Proxy.newProxyInstance(getClass().getClassLoader(),
                                new Class<?>[] {PreparedStatement.class}, (p, m, a) -> {
                                    if (m.getName().startsWith("execute") && holdClaims) {
                                        claimSent.countDown();
                                        if (!letClaimThrough.await(30, TimeUnit.SECONDS)) {
                                            throw new IllegalStateException("never let through");
                                        }
                                    }
                                    return invoke(result, m, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
