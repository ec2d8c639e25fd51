package dev.idem.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Inbox;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The relay's process dies at each point of its batch in turn (before a publish, between a
 * publish and its mark, inside the commit before and after it reached the database), at its
 * 1st, 2nd, ... occurrence until a run no longer reaches it; a fresh relay takes over. From
 * outside, after each run: every committed row is sent or dead, every sent row reached the
 * broker and was booked exactly once by a transactional inbox on the same database, each key's
 * rows first reached the broker in id order, and the dead-letter callback fired exactly once
 * for each dead row and never for a row that was sent.
 */
@Timeout(300)
class RelayFaultTest {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final Map<Backend, Jdbi> LEDGERS = new ConcurrentHashMap<>();

    /** Where the relay dies. */
    enum Point { BEFORE_PUBLISH, AFTER_PUBLISH, BEFORE_COMMIT, AFTER_COMMIT }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aDeadMarkThatRolledBackIsNeverReportedAndTheRowMayStillBeSent(Backend backend) {
        MutableClock clock = new MutableClock();
        Outbox outbox = OutboxTest.outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        jdbi.useTransaction(h -> {
            outbox.enqueue(h, new OutboxMessage("a", "t", null, OutboxTest.bytes("a")));
            outbox.enqueue(h, new OutboxMessage("b", "t", null, OutboxTest.bytes("b")));
        });
        List<String> broker = new CopyOnWriteArrayList<>();
        List<String> dead = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        Relay relay = outbox.relay(r -> {
            int call = calls.incrementAndGet();
            if (call == 1) {
                throw new IOException("broker refused a");   // a: its only attempt fails, marked dead
            }
            if (call == 2) {
                throw new RelayConcurrencyTest.Crash();       // b: the relay dies before the commit
            }
            broker.add(r.eventId());
        }).maxAttempts(1).onDeadLetter(r -> dead.add(r.eventId())).build();

        assertThatThrownBy(relay::runOnce).isInstanceOf(RelayConcurrencyTest.Crash.class);
        assertThat(dead).as("a's dead mark rolled back with the batch").isEmpty();
        assertThat(OutboxTest.count(jdbi, outbox, "P")).isEqualTo(2);

        assertThat(relay.runOnce()).isEqualTo(2);
        assertThat(broker).containsExactly("a", "b");
        assertThat(dead).as("a was sent: never dead-lettered").isEmpty();
        assertThat(OutboxTest.count(jdbi, outbox, "S")).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRelayDyingInADeadLetterCallbackRepeatsOnlyThatCallback(Backend backend) {
        MutableClock clock = new MutableClock();
        Outbox outbox = OutboxTest.outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        jdbi.useTransaction(h -> {
            for (String id : List.of("a", "b", "c")) {
                outbox.enqueue(h, new OutboxMessage(id, "t", null, OutboxTest.bytes(id)));
            }
        });
        List<String> calls = new CopyOnWriteArrayList<>();
        AtomicInteger deaths = new AtomicInteger();
        java.util.function.Supplier<Relay> relay = () -> outbox.relay(r -> {
            throw new IOException("broker refused " + r.eventId());
        }).maxAttempts(1).onDeadLetter(r -> {
            calls.add(r.eventId());
            if (r.eventId().equals("b") && deaths.getAndIncrement() == 0) {
                throw new RelayConcurrencyTest.Crash(); // dies after handing b over, before marking it
            }
        }).build();

        assertThatThrownBy(() -> relay.get().runOnce()).isInstanceOf(RelayConcurrencyTest.Crash.class);
        relay.get().runOnce();                        // a new process takes over

        // Before the fix the report of a, b and c was one transaction: the death repeated a too.
        assertThat(calls).as("a handed over once, b again once, c once").containsExactly("a", "b", "b", "c");
        assertThat(OutboxTest.count(jdbi, outbox, "D")).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRelayDyingAtEachPointOfItsBatchLosesNothingAndTheInboxBooksEachEventOnce(Backend backend) {
        Map<Point, Integer> reached = new EnumMap<>(Point.class);
        for (Point point : Point.values()) {
            int n = 1;
            while (new Scenario(backend, point, n).run()) {
                n++;
            }
            reached.put(point, n - 1);
        }
        // Every point was hit at least at its first occurrence (the script covers each one).
        assertThat(reached.values()).allSatisfy(n -> assertThat(n).isPositive());
    }

    /** One scripted run: the relay dies at the {@code n}th occurrence of {@code point}, once. */
    private static final class Scenario {
        private final Backend backend;
        private final Point point;
        private final int n;
        private final MutableClock clock = new MutableClock();
        private final Map<Point, AtomicInteger> seen = new EnumMap<>(Point.class);
        private final List<OutboxRecord> broker = new CopyOnWriteArrayList<>();
        private final List<String> dead = new CopyOnWriteArrayList<>();
        private final AtomicInteger flakyCalls = new AtomicInteger();
        private boolean crashed;

        Scenario(Backend backend, Point point, int n) {
            this.backend = backend;
            this.point = point;
            this.n = n;
            for (Point p : Point.values()) {
                seen.put(p, new AtomicInteger());
            }
        }

        private void at(Point p) {
            if (seen.get(p).incrementAndGet() == n && p == point) {
                crashed = true;
                throw new RelayConcurrencyTest.Crash();
            }
        }

        /** Runs the script and checks it; whether the relay died (false: {@code n} is past the last occurrence). */
        boolean run() {
            String table = "outbox_f" + TABLES.incrementAndGet();
            DataSource plain = backend.dataSource();
            Outbox writer = Outbox.builder(plain).tableName(table).clock(clock).build().createTableIfNotExists();
            DataSource dying = CrashingDataSource.wrap(plain, new CrashingDataSource.CommitHook() {
                @Override
                public void before() {
                    at(Point.BEFORE_COMMIT);
                }

                @Override
                public void after() {
                    at(Point.AFTER_COMMIT);
                }
            });
            Outbox relayView = Outbox.builder(dying).tableName(table).clock(clock).build();
            List<String> ids = List.of("e0", "e1", "e2", "e3", "e4", "e5", "e6");
            List<String> keys = java.util.Arrays.asList("k0", "k1", "k0", null, "k1", "k0", "k2");
            Jdbi.create(plain).useTransaction(h -> {
                for (int i = 0; i < ids.size(); i++) {
                    writer.enqueue(h, new OutboxMessage(ids.get(i), "t", keys.get(i), OutboxTest.bytes(ids.get(i))));
                }
            });

            Relay relay = relay(relayView);
            for (int round = 0; round < 100 && unfinished(writer) > 0; round++) {
                try {
                    relay.runOnce();
                } catch (RelayConcurrencyTest.Crash e) {
                    relay = relay(relayView);     // a new process takes over
                }
                clock.advance(Duration.ofHours(1)); // every backoff is due
            }
            check(writer, ids, keys);
            return crashed;
        }

        /** Rows pending, or dead with their dead letter not handed over yet. */
        private int unfinished(Outbox outbox) {
            return Jdbi.create(backend.dataSource()).withHandle(h -> h.createQuery("SELECT COUNT(*) FROM "
                    + outbox.tableName() + " WHERE state IN ('P', 'F')").mapTo(Integer.class).one());
        }

        private Relay relay(Outbox outbox) {
            return outbox.relay(r -> {
                at(Point.BEFORE_PUBLISH);
                // e5 is refused by the broker on its first two publishes: with 2 attempts it dies,
                // unless a crash rolled one of its failures back, and then its third publish works.
                if (r.eventId().equals("e5") && flakyCalls.incrementAndGet() <= 2) {
                    throw new IOException("broker refused e5");
                }
                broker.add(r);
                at(Point.AFTER_PUBLISH);
            }).orderedByKey(true).batchSize(3).maxAttempts(2).backoff(OutboxTest.backoff(n))
                    .onDeadLetter(r -> dead.add(r.eventId())).build();
        }

        private void check(Outbox outbox, List<String> ids, List<String> keys) {
            String what = backend + ", relay dies at " + point + " #" + n;
            Jdbi jdbi = Jdbi.create(backend.dataSource());
            Map<String, String> states = new LinkedHashMap<>();
            jdbi.useHandle(h -> h.createQuery("SELECT event_id, state FROM " + outbox.tableName() + " ORDER BY id")
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2).trim()))
                    .forEach(e -> states.put(e.getKey(), e.getValue())));
            List<String> sent = new ArrayList<>();
            List<String> deadRows = new ArrayList<>();
            states.forEach((id, state) -> (state.equals("S") ? sent : deadRows).add(id));
            List<String> onBroker = broker.stream().map(OutboxRecord::eventId).toList();

            assertThat(states.values()).as(what + ": every row ended").allMatch(s -> s.equals("S") || s.equals("D"));
            assertThat(deadRows).as(what + ": only the flaky row may die").isSubsetOf(List.of("e5"));
            assertThat(dead).as(what + ": the dead-letter callback for each dead row").hasSameElementsAs(deadRows);
            // Repeated only when the relay died between the call and the commit that records it.
            assertThat(dead.size() - deadRows.size()).as(what + ": dead-letter repeats")
                    .isLessThanOrEqualTo(point == Point.BEFORE_COMMIT ? 1 : 0);
            assertThat(onBroker).as(what + ": no dead row was sent").noneMatch(deadRows::contains);
            assertThat(onBroker).as(what + ": every sent row reached the broker").containsAll(sent);
            for (String key : List.of("k0", "k1", "k2")) {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < ids.size(); i++) {
                    if (key.equals(keys.get(i)) && sent.contains(ids.get(i))) {
                        expected.add(ids.get(i));
                    }
                }
                List<String> firstSeen = onBroker.stream().filter(id -> expected.contains(id)).distinct().toList();
                assertThat(firstSeen).as(what + ": " + key + " first published in id order").isEqualTo(expected);
            }

            Map<String, Integer> booked = bookThroughInbox();
            assertThat(booked.keySet()).as(what + ": the inbox booked every sent row").hasSameElementsAs(sent);
            assertThat(booked.values()).as(what + ": and each once").allMatch(c -> c == 1);
        }

        /** Delivers the broker's records, repeats included, to a transactional inbox; entries per event. */
        private Map<String, Integer> bookThroughInbox() {
            Jdbi ledger = ledger(backend);
            String source = "relay-" + UUID.randomUUID();
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).build();
            Inbox<Integer> inbox = Inbox.builder(Integer.class).engine(IdempotencyEngine.builder().store(store).build())
                    .consumer("ledger").transactionalHandler((m, c) -> store.inTransaction(c.key(), c.fencingToken(),
                            c.ttl(), c::encode, h -> h.createUpdate("INSERT INTO relay_ledger (source, event_id)"
                                    + " VALUES (:s, :e)").bind("s", m.source()).bind("e", m.eventId()).execute()))
                    .build();
            for (OutboxRecord r : broker) {
                inbox.handle(source, r.eventId(), r.payload());
            }
            Map<String, Integer> booked = new LinkedHashMap<>();
            ledger.useHandle(h -> h.createQuery("SELECT event_id, COUNT(*) FROM relay_ledger WHERE source = :s"
                    + " GROUP BY event_id").bind("s", source)
                    .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2)))
                    .forEach(e -> booked.put(e.getKey(), e.getValue())));
            return booked;
        }
    }

    private static Jdbi ledger(Backend backend) {
        return LEDGERS.computeIfAbsent(backend, b -> {
            JdbcIdempotencyStore.builder(b.dataSource()).build().createTableIfNotExists();
            Jdbi jdbi = Jdbi.create(b.dataSource());
            jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS relay_ledger (source VARCHAR(100) NOT NULL,"
                    + " event_id VARCHAR(100) NOT NULL)"));
            return Objects.requireNonNull(jdbi);
        });
    }
}
