package dev.idem.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.client.RetryPolicy;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Enqueue in the caller's transaction, publish, back off, dead-letter, purge; on all three databases. */
@Timeout(120)
class OutboxTest {
    private static final AtomicInteger TABLES = new AtomicInteger();

    final MutableClock clock = new MutableClock();
    final List<OutboxRecord> published = new CopyOnWriteArrayList<>();

    static Outbox outbox(Backend backend, MutableClock clock) {
        return Outbox.builder(backend.dataSource()).tableName("outbox_t" + TABLES.incrementAndGet())
                .clock(clock).build().createTableIfNotExists();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static RetryPolicy backoff(long seed) {
        return RetryPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofSeconds(60))
                .deadline(Duration.ofDays(1)).random(new Random(seed)).build();
    }

    static int count(Jdbi jdbi, Outbox outbox, String state) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + outbox.tableName() + " WHERE state = :s")
                .bind("s", state).mapTo(Integer.class).one());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void enqueueCommitsAndRollsBackWithTheCallersTransaction(Backend backend) throws Exception {
        Outbox outbox = outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        Relay relay = outbox.relay(published::add).build();

        String committed = jdbi.inTransaction(h -> outbox.enqueue(h, OutboxMessage.of("charge.created", "c1",
                bytes("{\"n\":1}"))));
        assertThatThrownBy(() -> jdbi.useTransaction(h -> {
            outbox.enqueue(h, new OutboxMessage("rolled-back", "charge.created", "c1", bytes("{\"n\":2}")));
            throw new IllegalStateException("business write failed");
        })).hasMessageContaining("business write failed");
        try (Connection c = backend.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.enqueue(c, new OutboxMessage("plain-jdbc", "charge.created", null, bytes("{\"n\":3}")));
            c.commit();
            outbox.enqueue(c, new OutboxMessage("plain-jdbc-rolled-back", "charge.created", null, bytes("{}")));
            c.rollback();
        }

        assertThat(relay.runOnce()).isEqualTo(2);
        assertThat(published).extracting(OutboxRecord::eventId).containsExactly(committed, "plain-jdbc");
        assertThat(published.get(0).key()).isEqualTo("c1");
        assertThat(published.get(0).topic()).isEqualTo("charge.created");
        assertThat(published.get(0).payload()).isEqualTo(bytes("{\"n\":1}"));
        assertThat(published.get(0).attempt()).isEqualTo(1);
        assertThat(published.get(1).key()).isNull();
        assertThat(relay.runOnce()).isZero();
        assertThat(count(jdbi, outbox, "S")).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void failuresBackOffWithFullJitterThenDeadLetterOnceAfterMaxAttempts(Backend backend) {
        Outbox outbox = outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        List<OutboxRecord> dead = new CopyOnWriteArrayList<>();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        Relay relay = outbox.relay(r -> {
            attempts.add(r.attempt());
            throw new java.io.IOException("broker down");
        }).maxAttempts(3).backoff(backoff(42)).onDeadLetter(dead::add).build();
        jdbi.useTransaction(h -> outbox.enqueue(h, new OutboxMessage("e1", "t", null, bytes("x"))));

        assertThat(relay.runOnce()).isEqualTo(1);
        long due1 = availableAt(jdbi, outbox, "e1") - clock.millis();
        // Full jitter before retry 0: uniform in [0, base].
        assertThat(due1).isBetween(0L, 1_000L);
        clock.advance(Duration.ofMillis(due1 + 1));
        assertThat(relay.runOnce()).isEqualTo(1);
        long due2 = availableAt(jdbi, outbox, "e1") - clock.millis();
        assertThat(due2).isBetween(0L, 2_000L);
        if (due2 > 0) {
            clock.advance(Duration.ofMillis(due2 - 1));
            assertThat(relay.runOnce()).as("not due yet").isZero();
        }
        clock.advance(Duration.ofMillis(1));
        assertThat(relay.runOnce()).isEqualTo(1);
        clock.advance(Duration.ofHours(1));
        assertThat(relay.runOnce()).isZero();

        assertThat(attempts).containsExactly(1, 2, 3);
        assertThat(dead).singleElement().satisfies(r -> {
            assertThat(r.eventId()).isEqualTo("e1");
            assertThat(r.attempt()).isEqualTo(3);
        });
        assertThat(count(jdbi, outbox, "D")).isEqualTo(1);
        String error = jdbi.withHandle(h -> h.createQuery("SELECT last_error FROM " + outbox.tableName())
                .mapTo(String.class).one());
        assertThat(error).contains("broker down");
    }

    private static long availableAt(Jdbi jdbi, Outbox outbox, String eventId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT available_at FROM " + outbox.tableName()
                + " WHERE event_id = :e").bind("e", eventId).mapTo(Long.class).one());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void sentRowsArePurgedAfterTheRetentionOthersStay(Backend backend) {
        Outbox outbox = outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        AtomicInteger calls = new AtomicInteger();
        Relay relay = outbox.relay(r -> {
            if (r.eventId().startsWith("dead")) {
                throw new IllegalStateException("poison " + calls.incrementAndGet());
            }
        }).maxAttempts(1).retention(Duration.ofDays(1)).build();
        jdbi.useTransaction(h -> {
            for (int i = 0; i < 5; i++) {
                outbox.enqueue(h, new OutboxMessage("old-" + i, "t", null, bytes("x")));
            }
            outbox.enqueue(h, new OutboxMessage("dead-1", "t", null, bytes("x")));
        });
        relay.runOnce();
        clock.advance(Duration.ofHours(12));
        jdbi.useTransaction(h -> outbox.enqueue(h, new OutboxMessage("young", "t", null, bytes("x"))));
        relay.runOnce();
        clock.advance(Duration.ofHours(13));

        assertThat(relay.purgeSent(3)).isEqualTo(3);
        assertThat(relay.purgeSent(100)).isEqualTo(2);
        assertThat(relay.purgeSent(100)).isZero();
        assertThat(count(jdbi, outbox, "S")).isEqualTo(1);
        assertThat(count(jdbi, outbox, "D")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void orderedByKeyPublishesEachKeysMessagesInOrderAndAFailingHeadHoldsItsKeyBack(Backend backend) {
        Outbox outbox = outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        AtomicInteger a1Tries = new AtomicInteger();
        Relay relay = outbox.relay(r -> {
            if (r.eventId().equals("a1") && a1Tries.incrementAndGet() == 1) {
                throw new IllegalStateException("a1 fails once");
            }
            published.add(r);
        }).orderedByKey(true).backoff(backoff(7)).build();
        jdbi.useTransaction(h -> {
            for (String id : List.of("a1", "b1", "a2", "n1", "b2", "a3", "b3")) {
                outbox.enqueue(h, new OutboxMessage(id, "t", id.startsWith("n") ? null : id.substring(0, 1),
                        bytes(id)));
            }
        });

        relay.runOnce();
        // a1 failed and holds a2, a3 back; b's head went out; the unkeyed message is never held.
        assertThat(published).extracting(OutboxRecord::eventId).containsExactly("b1", "n1");
        relay.runOnce();
        relay.runOnce();
        assertThat(published).extracting(OutboxRecord::eventId).containsExactly("b1", "n1", "b2", "b3");
        clock.advance(Duration.ofMinutes(5));
        while (relay.runOnce() > 0) {
            // drain
        }
        assertThat(published).extracting(OutboxRecord::eventId).containsExactly("b1", "n1", "b2", "b3", "a1", "a2",
                "a3");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aDuplicateEventIdIsRejectedWithTheCallersTransaction(Backend backend) {
        Outbox outbox = outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        jdbi.useTransaction(h -> outbox.enqueue(h, new OutboxMessage("same", "t", null, bytes("x"))));

        assertThatThrownBy(() -> jdbi.useTransaction(h -> outbox.enqueue(h,
                new OutboxMessage("same", "t", null, bytes("y"))))).isInstanceOf(RuntimeException.class);
        assertThat(count(jdbi, outbox, "P")).isEqualTo(1);
    }
}
