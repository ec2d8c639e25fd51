package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JDBC store's transactional mode through the hybrid store: the completion commits with
 * the business write, the gate hears of it only after the commit, and a rolled-back
 * completion never reaches the gate.
 */
@Timeout(60)
class TransactionalGateTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Jdbi JDBI = Jdbi.create(Databases.POSTGRES.dataSource());

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final String scope = "tx-" + UUID.randomUUID();
    private StatementCounter db;
    private HybridIdempotencyStore store;
    private long nextToken = 5000;

    /** A charge: the business row; carries the data of the idempotent result, so it must be JSON-friendly. */
    record Charge(String id, int amount) {
    }

    @BeforeAll
    static void createTable() {
        JDBI.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS hybrid_charge (id VARCHAR(64) PRIMARY KEY,"
                + " idem_key VARCHAR(255) NOT NULL, amount INT NOT NULL)"));
    }

    @BeforeEach
    void setUp() {
        db = new StatementCounter(Databases.POSTGRES.dataSource());
        JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder(db.dataSource()).clock(clock).build();
        store = HybridIdempotencyStore.builder(JedisScriptClient.of(GateRedis.Shared.A), truth).clock(clock).build();
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "charge", k);
    }

    private static int rows(IdempotencyKey k) {
        return JDBI.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM hybrid_charge WHERE idem_key = :k")
                .bind("k", k.toString()).mapTo(Integer.class).one());
    }

    private static Charge insert(Handle h, IdempotencyKey k, int amount) {
        String id = UUID.randomUUID().toString();
        h.createUpdate("INSERT INTO hybrid_charge (id, idem_key, amount) VALUES (:id, :k, :a)").bind("id", id)
                .bind("k", k.toString()).bind("a", amount).execute();
        return new Charge(id, amount);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void executeAtomicallyCommitsTheChargeWithTheCompletionAndTheGateReplaysIt() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).lease(LEASE).ttl(TTL).clock(clock).build();
        IdempotencyKey k = key("atomic");
        AtomicInteger runs = new AtomicInteger();
        Result<Charge> first = engine.executeAtomically(k, Map.of("amount", 10), Charge.class, CallOptions.defaults(),
                (ctx, completion) -> store.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(),
                        completion::encode, h -> {
                            runs.incrementAndGet();
                            return insert(h, ctx.key(), 10);
                        }));
        assertThat(first.replayed()).isFalse();
        assertThat(rows(k)).isEqualTo(1);

        Result<Charge> replay = engine.execute(k, Map.of("amount", 10), Charge.class, ctx -> {
            throw new AssertionError("ran again");
        });
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first.value());
        long before = db.executed();
        assertThat(engine.execute(k, Map.of("amount", 10), Charge.class, ctx -> null).value())
                .isEqualTo(first.value());
        assertThat(db.executed()).as("later replays come from the gate").isEqualTo(before);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aRolledBackCompletionNeverReachesTheGate() {
        IdempotencyKey k = key("rolled-back");
        long t = ++nextToken;
        store.claim(k, bytes("a"), t, LEASE, TTL);
        assertThatThrownBy(() -> store.inTransaction(k, t, TTL, (Charge c) -> bytes("charged"), h -> {
            insert(h, k, 10);
            throw new IllegalStateException("card declined after the insert");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(rows(k)).isZero();

        long before = db.executed();
        ClaimResult dup = store.claim(k, bytes("a"), ++nextToken, LEASE, TTL);
        assertThat(dup.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(dup.record().fencingToken()).isEqualTo(t);
        assertThat(db.executed()).as("answered by the gate, which never saw a completion").isEqualTo(before);
        assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void completeWithinReachesTheGateOnlyWhenTheCallersTransactionCommits() {
        IdempotencyKey k = key("within");
        long t = ++nextToken;
        store.claim(k, bytes("a"), t, LEASE, TTL);
        try (Handle h = JDBI.open()) {
            h.begin();
            insert(h, k, 10);
            assertThat(store.completeWithin(h, k, t, bytes("charged"), TTL)).isTrue();
            h.rollback();
        }
        assertThat(store.claim(k, bytes("a"), ++nextToken, LEASE, TTL).record().state())
                .as("after a rollback").isEqualTo(RecordState.IN_PROGRESS);

        try (Handle h = JDBI.open()) {
            h.begin();
            insert(h, k, 10);
            assertThat(store.completeWithin(h, k, t, bytes("charged"), TTL)).isTrue();
            assertThat(store.claim(k, bytes("a"), ++nextToken, LEASE, TTL).record().state())
                    .as("before the commit").isEqualTo(RecordState.IN_PROGRESS);
            h.commit();
        }
        ClaimResult replay = store.claim(k, bytes("a"), ++nextToken, LEASE, TTL);
        assertThat(replay.record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(replay.record().outcome()).isEqualTo(bytes("charged"));
        assertThat(rows(k)).isEqualTo(1);
    }

    @Test
    void aStaleHoldersTransactionRollsBackAndTheTakerOverIsUntouched() {
        IdempotencyKey k = key("stale");
        long stale = ++nextToken;
        store.claim(k, bytes("a"), stale, LEASE, TTL);
        clock.advance(LEASE);
        long taker = ++nextToken;
        assertThat(store.claim(k, bytes("a"), taker, LEASE, TTL).status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);

        assertThatThrownBy(() -> store.inTransaction(k, stale, TTL, (Charge c) -> bytes("stale"),
                h -> insert(h, k, 99))).isInstanceOf(LeaseLostException.class);
        assertThat(rows(k)).isZero();
        assertThat(store.claim(k, bytes("a"), ++nextToken, LEASE, TTL).record().fencingToken()).isEqualTo(taker);
        assertThat(store.inTransaction(k, taker, TTL, (Charge c) -> bytes("taker"), h -> insert(h, k, 10)).amount())
                .isEqualTo(10);
        assertThat(store.claim(k, bytes("a"), ++nextToken, LEASE, TTL).record().outcome()).isEqualTo(bytes("taker"));
    }
}
