package dev.idem.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's examples, run as printed (readme-tests checks the README against these regions). */
@Timeout(120)
class ReadmeExamplesTest {
    record LedgerEntry(String eventId, String body, int attempt) {
    }

    static final class UnknownAccountException extends RuntimeException {
        UnknownAccountException(String message) {
            super(message);
        }
    }

    /** Books an entry; fails transiently on its first call when told to, finally for account "nobody". */
    static final class Ledger {
        final List<String> booked = new CopyOnWriteArrayList<>();
        boolean failFirst;

        LedgerEntry book(String eventId, Object payload, int attempt) {
            String body = new String((byte[]) payload, StandardCharsets.UTF_8);
            if (body.contains("nobody")) {
                throw new UnknownAccountException("no account nobody");
            }
            if (failFirst && attempt == 1) {
                throw new IllegalStateException("ledger down");
            }
            booked.add(eventId);
            return new LedgerEntry(eventId, body, attempt);
        }

        int book(Handle handle, InboxMessage message) {
            handle.createUpdate("INSERT INTO readme_ledger (event_id) VALUES (:e)")
                    .bind("e", message.eventId()).execute();
            return booked.size() + 1;
        }
    }

    private final String source = "payments-" + UUID.randomUUID();
    private final Ledger ledger = new Ledger();
    private final List<Mismatch> parked = new CopyOnWriteArrayList<>();
    private final List<DeadLetter> dead = new CopyOnWriteArrayList<>();
    private final List<InboxEvent.Type> counted = new CopyOnWriteArrayList<>();
    private final Parking parking = parked::add;
    private final Dlq dlq = dead::add;
    private final Metrics metrics = counted::add;

    interface Parking {
        void park(Mismatch m);
    }

    interface Dlq {
        void publish(DeadLetter d);
    }

    interface Metrics {
        void count(InboxEvent.Type type);
    }

    private Delivery<LedgerEntry> deliver(Inbox<LedgerEntry> inbox, String eventId, String body) {
        return inbox.handle(source, eventId, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void inbox() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
        String eventId = "evt-1";
        byte[] payloadBytes = "{\"amount\":10}".getBytes(StandardCharsets.UTF_8);
        // tag::inbox[]
        Inbox<LedgerEntry> inbox = Inbox.builder(LedgerEntry.class)
                .engine(engine)                    // or .store(store) for an engine with defaults
                .consumer("ledger")                // the operation of every inbox record
                .handler(message -> ledger.book(message.eventId(), message.payload(), message.attempt()))
                .maxAttempts(5)                    // then the dead-letter callback, once
                .failureClassifier(e -> e instanceof UnknownAccountException
                        ? FailureDecision.finalFailure("unknown_account", e.getMessage())
                        : FailureDecision.transientFailure())
                .onMismatch(m -> parking.park(m))  // same event id, another payload: a poison message
                .onDeadLetter(d -> dlq.publish(d))
                .listener(event -> metrics.count(event.type()))
                .build();

        // In the broker's consumer loop:
        Delivery<LedgerEntry> d = inbox.handle(source, eventId, payloadBytes);  // returns: acknowledge
                                                                                 // throws: do not (redeliver)
        // end::inbox[]

        Delivery<LedgerEntry> first = d;
        Delivery<LedgerEntry> again = deliver(inbox, "evt-1", "{\"amount\":10}");
        assertThat(first.status()).isEqualTo(Delivery.Status.HANDLED);
        assertThat(again.duplicate()).isTrue();
        assertThat(again.result()).isEqualTo(first.result());
        assertThat(ledger.booked).containsExactly("evt-1");

        assertThat(deliver(inbox, "evt-1", "{\"amount\":99}").status()).isEqualTo(Delivery.Status.MISMATCH);
        assertThat(parked).extracting(Mismatch::eventId).containsExactly("evt-1");

        ledger.failFirst = true;
        assertThatThrownBy(() -> deliver(inbox, "evt-2", "{\"amount\":20}")).hasMessage("ledger down");
        assertThat(deliver(inbox, "evt-2", "{\"amount\":20}").result().attempt()).isEqualTo(2);

        Delivery<LedgerEntry> unknown = deliver(inbox, "evt-3", "{\"account\":\"nobody\"}");
        assertThat(unknown.status()).isEqualTo(Delivery.Status.FAILED);
        assertThat(unknown.failureCode()).isEqualTo("unknown_account");
        assertThat(dead).extracting(DeadLetter::reason).containsExactly(DeadLetter.Reason.FINAL_FAILURE);
        assertThat(counted).contains(InboxEvent.Type.MISMATCH);
    }

    @Test
    void transactionalHandler() {
        JdbcIdempotencyStore store = Database.H2.store();
        Jdbi jdbi = Jdbi.create(Database.H2.dataSource());
        jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS readme_ledger (event_id VARCHAR(100) NOT NULL)"));
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // tag::transactional[]
        Inbox<Integer> inbox = Inbox.builder(Integer.class)
                .engine(engine)                                   // over a JdbcIdempotencyStore `store`
                .consumer("ledger")
                .transactionalHandler((message, completion) -> store.inTransaction(
                        completion.key(), completion.fencingToken(), completion.ttl(), completion::encode,
                        handle -> ledger.book(handle, message)))   // your writes on the transaction's handle
                .build();
        // end::transactional[]
        String eventId = "evt-" + UUID.randomUUID();
        byte[] payload = "{\"amount\":1}".getBytes(StandardCharsets.UTF_8);

        Delivery<Integer> first = inbox.handle(source, eventId, payload);
        Delivery<Integer> again = inbox.handle(source, eventId, payload);

        assertThat(first.status()).isEqualTo(Delivery.Status.HANDLED);
        assertThat(again.duplicate()).isTrue();
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM readme_ledger WHERE event_id = :e")
                .bind("e", eventId).mapTo(Integer.class).one());
        assertThat(rows).isEqualTo(1);
    }
}
