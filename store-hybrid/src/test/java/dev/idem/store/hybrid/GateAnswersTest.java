package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.hybrid.internal.GateKeys;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.RedisClient;

/**
 * What the gate answers, and when it must not: duplicates answered without a database
 * statement once the gate knows the key, and every kind of wrong gate data (lost, stale,
 * foreign, on another clock) leading to the database's answer instead. Real Redis and
 * PostgreSQL; time on one test clock (or two, for skew), never slept.
 */
@Timeout(60)
class GateAnswersTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final RedisClient REDIS = GateRedis.Shared.A;
    private static final GateKeys KEYS = new GateKeys(HybridIdempotencyStore.DEFAULT_KEY_PREFIX);

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final RecordingListener events = new RecordingListener();
    private final String scope = "gate-" + UUID.randomUUID();
    private StatementCounter db;
    private HybridIdempotencyStore store;
    private long nextToken = 1000;

    @BeforeEach
    void setUp() {
        db = new StatementCounter(Databases.POSTGRES.dataSource());
        store = hybrid(clock, clock);
    }

    private HybridIdempotencyStore hybrid(MutableClock gateClock, MutableClock dbClock) {
        JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder(db.dataSource()).clock(dbClock).build();
        return HybridIdempotencyStore.builder(JedisScriptClient.of(REDIS), truth).clock(gateClock).listener(events).build();
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "charge", k);
    }

    private ClaimResult claim(IdempotencyKey k, String fp, long token) {
        return store.claim(k, bytes(fp), token, LEASE, TTL);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private long token() {
        return ++nextToken;
    }

    @Test
    void replaysTouchNoDatabaseOnceTheGateKnowsTheCompletion() {
        IdempotencyKey k = key("replay");
        long t = token();
        assertThat(claim(k, "a", t).status()).isEqualTo(Status.ACQUIRED);
        assertThat(store.complete(k, t, bytes("charged"), TTL)).isTrue();
        // The first replay learns the outcome the database kept.
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("charged"));

        long before = db.executed();
        events.clear();
        for (int i = 0; i < 5; i++) {
            ClaimResult replay = claim(k, "a", token());
            assertThat(replay.status()).isEqualTo(Status.EXISTING);
            assertThat(replay.record().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(replay.record().outcome()).isEqualTo(bytes("charged"));
            assertThat(replay.record().fencingToken()).isEqualTo(t);
        }
        // Another request with the key is refused from the gate too: the completion is final.
        assertThat(claim(k, "b", token()).record().fingerprint()).isEqualTo(bytes("a"));
        assertThat(db.executed()).as("database statements for 6 duplicates of a completed key").isEqualTo(before);
        assertThat(events.count(Type.ANSWERED_BY_GATE)).isEqualTo(6);
    }

    @Test
    void duplicatesOfWorkInProgressTouchNoDatabase() {
        IdempotencyKey k = key("held");
        long t = token();
        claim(k, "a", t);
        long before = db.executed();
        for (int i = 0; i < 5; i++) {
            ClaimResult dup = claim(k, "a", token());
            assertThat(dup.status()).isEqualTo(Status.EXISTING);
            assertThat(dup.record().fencingToken()).isEqualTo(t);
            assertThat(Duration.between(dup.storeTime(), dup.record().leaseExpiresAt())).isEqualTo(LEASE);
        }
        assertThat(db.executed()).isEqualTo(before);
    }

    @Test
    void aForeignRecordCopiedFromAnotherKeyIsNeverAnswered() {
        IdempotencyKey a = key("a");
        IdempotencyKey b = key("b");
        long ta = token();
        claim(a, "same request", ta);
        store.complete(a, ta, bytes("outcome of a"), TTL);
        claim(a, "same request", token());
        long tb = token();
        claim(b, "same request", tb);

        REDIS.restore(KEYS.redisKey(b), 0, REDIS.dump(KEYS.redisKey(a)), restoreReplace());
        ClaimResult dup = claim(b, "same request", token());
        assertThat(dup.status()).isEqualTo(Status.EXISTING);
        assertThat(dup.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(dup.record().fencingToken()).isEqualTo(tb);
        assertThat(events.count(Type.GATE_CORRECTED)).isPositive();

        store.complete(b, tb, bytes("outcome of b"), TTL);
        claim(b, "same request", token());
        REDIS.restore(KEYS.redisKey(b), 0, REDIS.dump(KEYS.redisKey(a)), restoreReplace());
        assertThat(claim(b, "same request", token()).record().outcome()).isEqualTo(bytes("outcome of b"));
        assertThat(claim(b, "same request", token()).record().outcome()).isEqualTo(bytes("outcome of b"));
    }

    private static redis.clients.jedis.params.RestoreParams restoreReplace() {
        return redis.clients.jedis.params.RestoreParams.restoreParams().replace();
    }

    @Test
    void aStaleInProgressRecordHoldsDuplicatesOffOnlyUntilItsOwnLeaseThenTheDatabaseAnswers() {
        IdempotencyKey k = key("stale");
        long t = token();
        claim(k, "a", t);
        store.complete(k, t, bytes("done"), TTL);
        claim(k, "a", token());
        // An older state of the record, as a restored snapshot or a lost write would leave it.
        byte[] rk = KEYS.redisKey(k);
        REDIS.hdel(rk, bytes("o"), bytes("x"));
        REDIS.hset(rk, bytes("s"), bytes("I"));
        REDIS.hset(rk, bytes("t"), bytes("77"));
        REDIS.hset(rk, bytes("l"), bytes(Long.toString(clock.millis() + 5_000)));

        ClaimResult during = claim(k, "a", token());
        assertThat(during.status()).isEqualTo(Status.EXISTING);
        assertThat(during.record().state()).as("a duplicate during the stale lease is refused, never run")
                .isEqualTo(RecordState.IN_PROGRESS);
        clock.advance(Duration.ofSeconds(5));
        ClaimResult after = claim(k, "a", token());
        assertThat(after.record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(after.record().outcome()).isEqualTo(bytes("done"));
        long before = db.executed();
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("done"));
        assertThat(db.executed()).as("the gate is right again").isEqualTo(before);
    }

    /** A completed record missing its outcome, or the nonce every write compares, as a partial write leaves it. */
    @ParameterizedTest
    @ValueSource(strings = {"o", "g"})
    void aTornRecordIsNeverAnswered(String missing) {
        IdempotencyKey k = key("torn-" + missing);
        long t = token();
        claim(k, "a", t);
        store.complete(k, t, bytes("whole"), TTL);
        claim(k, "a", token());
        REDIS.hdel(KEYS.redisKey(k), bytes(missing));
        events.clear();
        ClaimResult replay = claim(k, "a", token());
        assertThat(replay.record().outcome()).isEqualTo(bytes("whole"));
        assertThat(events.count(Type.GATE_CORRECTED)).isEqualTo(1);
        assertThat(events.count(Type.ANSWERED_BY_GATE)).isZero();
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("whole"));
        assertThat(events.count(Type.ANSWERED_BY_GATE)).isEqualTo(1);
    }

    @Test
    void aGateThatLostAClaimInFlightPredictsWrongAndTakesTheDatabasesAnswer() {
        IdempotencyKey k = key("lost-claim");
        long holder = token();
        claim(k, "a", holder);
        REDIS.del(KEYS.redisKey(k));

        ClaimResult dup = claim(k, "a", token());
        assertThat(dup.status()).isEqualTo(Status.EXISTING);
        assertThat(dup.record().fencingToken()).isEqualTo(holder);
        assertThat(events.count(Type.GATE_CORRECTED)).isEqualTo(1);
        long before = db.executed();
        assertThat(claim(k, "a", token()).record().fencingToken()).isEqualTo(holder);
        assertThat(db.executed()).as("the gate learnt the holder").isEqualTo(before);

        assertThat(store.complete(k, holder, bytes("once"), TTL)).isTrue();
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("once"));
    }

    @Test
    void aGateThatLostACompletionReadsItFromTheDatabase() {
        IdempotencyKey k = key("lost-completion");
        long t = token();
        claim(k, "a", t);
        store.complete(k, t, bytes("once"), TTL);
        claim(k, "a", token());
        REDIS.del(KEYS.redisKey(k));

        ClaimResult replay = claim(k, "a", token());
        assertThat(replay.status()).isEqualTo(Status.EXISTING);
        assertThat(replay.record().outcome()).isEqualTo(bytes("once"));
        assertThat(replay.record().attempt()).isEqualTo(1);
        long before = db.executed();
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("once"));
        assertThat(db.executed()).isEqualTo(before);
    }

    /**
     * Redis and the database on clocks an hour apart, either way: leases still lapse on the
     * gate exactly when they lapse in the database. A gate that copied the database's instants
     * would refuse the takeovers (database ahead) or keep a completed record an hour too long.
     */
    @ParameterizedTest
    @ValueSource(longs = {3_600_000, -3_600_000})
    void redisAndTheDatabaseMayRunOnClocksHoursApart(long skewMillis) {
        MutableClock dbClock = new MutableClock(clock.instant().plusMillis(skewMillis));
        store = hybrid(clock, dbClock);
        IdempotencyKey k = key("skew");
        claim(k, "a", token());
        clock.advance(LEASE);
        dbClock.advance(LEASE);
        long second = token();
        ClaimResult takeover = claim(k, "a", second);
        assertThat(takeover.status()).isEqualTo(Status.TAKEN_OVER);
        ClaimResult dup = claim(k, "a", token());
        assertThat(dup.record().fencingToken()).isEqualTo(second);
        assertThat(Duration.between(dup.storeTime(), dup.record().leaseExpiresAt())).isEqualTo(LEASE);

        clock.advance(LEASE.minusMillis(1));
        dbClock.advance(LEASE.minusMillis(1));
        assertThat(claim(k, "a", token()).status()).isEqualTo(Status.EXISTING);
        clock.advance(Duration.ofMillis(1));
        dbClock.advance(Duration.ofMillis(1));
        long third = token();
        ClaimResult again = claim(k, "a", third);
        assertThat(again.status()).isEqualTo(Status.TAKEN_OVER);
        assertThat(again.record().attempt()).isEqualTo(3);

        assertThat(store.complete(k, third, bytes("late"), TTL)).isTrue();
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("late"));
        assertThat(claim(k, "a", token()).record().outcome()).isEqualTo(bytes("late"));
        clock.advance(TTL);
        dbClock.advance(TTL);
        ClaimResult fresh = claim(k, "a", token());
        assertThat(fresh.status()).as("after the TTL on both clocks").isEqualTo(Status.ACQUIRED);
        assertThat(fresh.record().attempt()).isEqualTo(1);
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsWritten() {
        IdempotencyKey k = key("bad");
        long before = db.executed();
        assertThatThrownBy(() -> store.claim(k, bytes("a"), token(), Duration.ZERO, TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> store.claim(k, new byte[2000], token(), LEASE, TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fingerprint");
        assertThatThrownBy(() -> store.claim(k, null, token(), LEASE, TTL)).isInstanceOf(NullPointerException.class);
        assertThat(REDIS.exists(KEYS.redisKey(k))).isFalse();
        assertThat(db.executed()).isEqualTo(before);
        assertThat(store.find(k)).isEmpty();
    }
}
