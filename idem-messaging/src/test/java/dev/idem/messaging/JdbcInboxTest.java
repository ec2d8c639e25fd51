package dev.idem.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The inbox on idem-store-jdbc, with the ledger entry and the inbox record committed in one
 * transaction ({@link TransactionalMessageHandler} over {@code JdbcIdempotencyStore.inTransaction}).
 */
@Timeout(120)
class JdbcInboxTest {
    private final String source = "payments-" + UUID.randomUUID();

    private static Jdbi ledger(Database db) {
        Jdbi jdbi = Jdbi.create(db.dataSource());
        jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS ledger (source VARCHAR(100) NOT NULL,"
                + " event_id VARCHAR(100) NOT NULL, amount INT NOT NULL)"));
        return jdbi;
    }

    private static int book(Handle h, InboxMessage m) {
        String body = new String((byte[]) m.payload(), StandardCharsets.UTF_8);
        int amount = Integer.parseInt(body.replaceAll("\\D", ""));
        h.createUpdate("INSERT INTO ledger (source, event_id, amount) VALUES (:s, :e, :a)")
                .bind("s", m.source()).bind("e", m.eventId()).bind("a", amount).execute();
        return amount;
    }

    private int entries(Jdbi jdbi, String eventId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger WHERE source = :s AND event_id = :e")
                .bind("s", source).bind("e", eventId).mapTo(Integer.class).one());
    }

    private static Inbox.Builder<Integer> transactional(JdbcIdempotencyStore store,
            TransactionalMessageHandler<Integer> handler) {
        return Inbox.builder(Integer.class).engine(IdempotencyEngine.builder().store(store).build())
                .consumer("ledger").transactionalHandler(handler);
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void ledgerEntryAndInboxRecordCommitTogether(Database db) {
        Jdbi jdbi = ledger(db);
        JdbcIdempotencyStore store = db.store();
        AtomicInteger calls = new AtomicInteger();
        Inbox<Integer> inbox = transactional(store, (m, c) -> store.inTransaction(c.key(), c.fencingToken(), c.ttl(),
                c::encode, h -> {
                    int amount = book(h, m);
                    if (calls.incrementAndGet() == 1) {
                        // Dies after its write, before commit: the write must not survive.
                        throw new IllegalStateException("crash before commit");
                    }
                    return amount;
                })).build();
        byte[] payload = "{\"amount\":42}".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> inbox.handle(source, "evt-1", payload)).hasMessageContaining("crash");
        assertThat(entries(jdbi, "evt-1")).isZero();

        Delivery<Integer> second = inbox.handle(source, "evt-1", payload);
        Delivery<Integer> third = inbox.handle(source, "evt-1", payload);

        assertThat(second.result()).isEqualTo(42);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(third.duplicate()).isTrue();
        assertThat(third.result()).isEqualTo(42);
        assertThat(entries(jdbi, "evt-1")).isEqualTo(1);
        assertThat(calls).hasValue(2);
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void deadLettersAndFinalFailuresAreRecordedInTransactionalModeToo(Database db) {
        JdbcIdempotencyStore store = db.store();
        List<DeadLetter> dead = new CopyOnWriteArrayList<>();
        Inbox<Integer> inbox = transactional(store, (m, c) -> {
            if (m.eventId().equals("final")) {
                throw new IllegalArgumentException("unknown account");
            }
            throw new IllegalStateException("down");
        }).maxAttempts(2).onDeadLetter(dead::add).failureClassifier(e -> e instanceof IllegalArgumentException
                ? FailureDecision.finalFailure("bad", e.getMessage()) : FailureDecision.transientFailure()).build();
        byte[] p = "1".getBytes(StandardCharsets.UTF_8);

        assertThat(inbox.handle(source, "final", p).status()).isEqualTo(Delivery.Status.FAILED);
        assertThatThrownBy(() -> inbox.handle(source, "flaky", p)).hasMessage("down");
        assertThat(inbox.handle(source, "flaky", p).status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        Delivery<Integer> replay = inbox.handle(source, "flaky", p);

        assertThat(replay.duplicate()).isTrue();
        assertThat(replay.status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        assertThat(inbox.handle(source, "final", p).duplicate()).isTrue();
        assertThat(dead).extracting(DeadLetter::eventId).containsExactly("final", "flaky");
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void redeliveryStormBooksEachEventOnce(Database db) throws Exception {
        Jdbi jdbi = ledger(db);
        JdbcIdempotencyStore store = db.store();
        Inbox<Integer> inbox = transactional(store, (m, c) -> store.inTransaction(c.key(), c.fencingToken(), c.ttl(),
                c::encode, h -> book(h, m))).maxAttempts(100).build();
        Storm storm = new Storm(40, 7);

        storm.run(2, (id, payload) -> inbox.handle(source, id, payload));

        int total = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger WHERE source = :s")
                .bind("s", source).mapTo(Integer.class).one());
        int distinct = jdbi.withHandle(h -> h.createQuery(
                "SELECT COUNT(DISTINCT event_id) FROM ledger WHERE source = :s").bind("s", source)
                .mapTo(Integer.class).one());
        assertThat(total).isEqualTo(40);
        assertThat(distinct).isEqualTo(40);
        assertThat(storm.lostAcks.get()).isPositive();
    }
}
