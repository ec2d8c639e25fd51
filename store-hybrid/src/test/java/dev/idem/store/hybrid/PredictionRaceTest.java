package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.hybrid.internal.GateKeys;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.UnifiedJedis;

/**
 * The window between a prediction and its database claim, held open on purpose: the claim's
 * database statement is blocked on a latch after the gate has written the prediction. A
 * duplicate is told "in progress" by the gate in that window; everything else the store answers
 * must agree with that answer, although the database has no record yet: a read answers the
 * predicted record, a read whose database query ran in the window but reached the gate only after
 * the claim landed and was completed answers the completion (never "no record"), and a completion
 * with the predicted token waits for the claim to land and then succeeds (refusing it would say
 * the token was never current).
 */
@Timeout(60)
class PredictionRaceTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final CountDownLatch claimSent = new CountDownLatch(1);
    private final CountDownLatch letClaimThrough = new CountDownLatch(1);
    private volatile boolean holdClaims = true;
    private volatile boolean failHeldClaims;

    @Test
    void answersGivenFromAPredictionAreKeptWhileItsClaimIsOnItsWay() throws Exception {
        HybridIdempotencyStore holder = store(GateRedis.Shared.A, blockingClaims(Databases.POSTGRES.dataSource()));
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

    @Test
    void aReadWhoseQueryRanBeforeThePredictedClaimLandedNeverSaysNoRecordOnceTheClaimIsCompleted()
            throws Exception {
        HybridIdempotencyStore holder = store(GateRedis.Shared.A, blockingClaims(Databases.POSTGRES.dataSource()));
        HybridIdempotencyStore other = store(GateRedis.Shared.B, Databases.POSTGRES.otherDataSource());
        CountDownLatch queried = new CountDownLatch(1);
        CountDownLatch letReadReturn = new CountDownLatch(1);
        HybridIdempotencyStore reader = store(GateRedis.Shared.B,
                heldAfterItsQuery(Databases.POSTGRES.otherDataSource(), queried, letReadReturn));
        IdempotencyKey k = IdempotencyKey.of("race-" + UUID.randomUUID(), "charge", "read");
        byte[] fp = "a".getBytes(StandardCharsets.UTF_8);

        CompletableFuture<ClaimResult> claim = CompletableFuture.supplyAsync(() -> holder.claim(k, fp, 7, LEASE, TTL));
        assertThat(claimSent.await(30, TimeUnit.SECONDS)).as("the claim reached the database").isTrue();
        assertThat(other.claim(k, fp, 8, LEASE, TTL).record().fencingToken())
                .as("a duplicate is told: token 7 is in progress").isEqualTo(7);

        // The read starts after that answer; its query runs before the claim lands, and it reaches the
        // gate only after the claim landed and was completed (the prediction is gone by then).
        CompletableFuture<Optional<StoredRecord>> read = CompletableFuture.supplyAsync(() -> reader.find(k));
        assertThat(queried.await(30, TimeUnit.SECONDS)).as("the read's query ran").isTrue();
        holdClaims = false;
        letClaimThrough.countDown();
        assertThat(claim.get(30, TimeUnit.SECONDS).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(holder.complete(k, 7, "done".getBytes(StandardCharsets.UTF_8), TTL)).isTrue();
        letReadReturn.countDown();

        assertThat(read.get(30, TimeUnit.SECONDS)).as("a read that began after token 7 was reported in progress")
                .hasValueSatisfying(r -> {
                    assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(r.fencingToken()).isEqualTo(7);
                });
    }

    /**
     * Another request's claim meets the prediction (which would make it a 422) before the predicted
     * claim reached the database. It is not answered until the database has that claim: here the
     * claim fails instead, and the other request then owns the key. Had it been told 422 from the
     * prediction, a 422 would have reached the request that owns the key.
     */
    @Test
    void anotherRequestIsNotTold422UntilThePredictedClaimIsInTheDatabase() throws Exception {
        HybridIdempotencyStore holder = store(GateRedis.Shared.A, blockingClaims(Databases.POSTGRES.dataSource()));
        StatementCounter db = new StatementCounter(Databases.POSTGRES.otherDataSource());
        HybridIdempotencyStore other = store(GateRedis.Shared.B, db.dataSource());
        IdempotencyKey k = IdempotencyKey.of("race-" + UUID.randomUUID(), "charge", "another");

        CompletableFuture<ClaimResult> claim = CompletableFuture.supplyAsync(
                () -> holder.claim(k, "a".getBytes(StandardCharsets.UTF_8), 7, LEASE, TTL));
        assertThat(claimSent.await(30, TimeUnit.SECONDS)).as("the claim reached the database").isTrue();

        long before = db.executed();
        CompletableFuture<ClaimResult> another = CompletableFuture.supplyAsync(
                () -> other.claim(k, "b".getBytes(StandardCharsets.UTF_8), 9, LEASE, TTL));
        // It looks in the database (twice: the first look found nothing, and it looked again) ...
        assertThat(db.awaitExecuted(before + 2, 30_000)).as("the other request read the database").isTrue();
        assertThat(another).as("... and is not answered while the predicted claim is on its way").isNotDone();

        failHeldClaims = true;
        letClaimThrough.countDown();
        assertThat(claim).failsWithin(30, TimeUnit.SECONDS);
        ClaimResult result = another.get(30, TimeUnit.SECONDS);
        assertThat(result.status()).as("the other request owns the key: %s", result.record())
                .isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(result.record().fencingToken()).isEqualTo(9);
    }

    /**
     * The window gate loss leaves, held open: the gate lost a completed record, so the next claim
     * predicts over it. While that claim is on its way to the database a duplicate is told 409 (the
     * database would replay): the README's gate-loss row. Another request is not told 422 from the
     * prediction but from the database's completed record. Once the predicting claim is answered
     * (EXISTING, the completion), the gate holds the completion and the 409s are over.
     */
    @Test
    void afterTheGateLostACompletionA409LastsOnlyUntilThePredictingClaimIsAnswered() throws Exception {
        HybridIdempotencyStore holder = store(GateRedis.Shared.A, blockingClaims(Databases.POSTGRES.dataSource()));
        HybridIdempotencyStore other = store(GateRedis.Shared.B, Databases.POSTGRES.otherDataSource());
        IdempotencyKey k = IdempotencyKey.of("race-" + UUID.randomUUID(), "charge", "lost");
        byte[] fp = "a".getBytes(StandardCharsets.UTF_8);
        assertThat(other.claim(k, fp, 5, LEASE, TTL).claimed()).isTrue();
        assertThat(other.complete(k, 5, "once".getBytes(StandardCharsets.UTF_8), TTL)).isTrue();
        GateRedis.Shared.B.del(new GateKeys(HybridIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(k));

        CompletableFuture<ClaimResult> claim = CompletableFuture.supplyAsync(() -> holder.claim(k, fp, 7, LEASE, TTL));
        assertThat(claimSent.await(30, TimeUnit.SECONDS)).as("the predicting claim reached the database").isTrue();
        assertThat(other.claim(k, fp, 8, LEASE, TTL).record().state())
                .as("a duplicate while the predicting claim is on its way: 409").isEqualTo(RecordState.IN_PROGRESS);
        ClaimResult another = other.claim(k, "b".getBytes(StandardCharsets.UTF_8), 9, LEASE, TTL);
        assertThat(another.record().state()).as("another request: the database's record, not the prediction")
                .isEqualTo(RecordState.COMPLETED);

        holdClaims = false;
        letClaimThrough.countDown();
        ClaimResult answered = claim.get(30, TimeUnit.SECONDS);
        assertThat(answered.record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(other.claim(k, fp, 10, LEASE, TTL).record().outcome()).as("the 409s ended with that answer")
                .isEqualTo("once".getBytes(StandardCharsets.UTF_8));
    }

    /** A hybrid store on {@code gate} and {@code db}, both on the test clock. */
    private HybridIdempotencyStore store(UnifiedJedis gate, DataSource db) {
        return HybridIdempotencyStore.builder(JedisScriptClient.of(gate), JdbcIdempotencyStore.builder(db).clock(clock)
                .build()).clock(clock).build();
    }

    /** A DataSource whose first statement, once it has run, holds its caller until let go. */
    private DataSource heldAfterItsQuery(DataSource target, CountDownLatch ran, CountDownLatch letGo) {
        AtomicBoolean first = new AtomicBoolean(true);
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (!(result instanceof Connection)) {
                        return result;
                    }
                    Connection c = (Connection) result;
                    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                            (cp, cm, ca) -> {
                                Object made = invoke(c, cm, ca);
                                if (!(made instanceof PreparedStatement)) {
                                    return made;
                                }
                                return Proxy.newProxyInstance(getClass().getClassLoader(),
                                        new Class<?>[] {PreparedStatement.class}, (p, m, a) -> {
                                            Object out = invoke(made, m, a);
                                            if (m.getName().startsWith("execute") && first.getAndSet(false)) {
                                                ran.countDown();
                                                if (!letGo.await(30, TimeUnit.SECONDS)) {
                                                    throw new IllegalStateException("never let go");
                                                }
                                            }
                                            return out;
                                        });
                            });
                });
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
                                        if (failHeldClaims) {
                                            throw new SQLException("connection reset (injected)", "08006");
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
