package dev.idem.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch's commit fails on the wire: the relay cannot know from the answer whether it landed,
 * so it re-reads the rows it wrote and reports what the table says. Three rows per run: two are
 * published, one is refused and rescheduled; the connection breaks after the commit reached the
 * database, or before; or the database stays unreachable so the rows cannot be re-read.
 */
@Timeout(120)
class RelayCommitOutcomeTest {
    private final MutableClock clock = new MutableClock();
    private final List<RelayBatch> batches = new CopyOnWriteArrayList<>();

    /** The three rows, and a relay over a data source whose first commit fails as {@code hook} says. */
    private Relay relay(Backend backend, Outbox outbox, CrashingDataSource.CommitHook hook, AtomicBoolean down) {
        Jdbi.create(backend.dataSource()).useTransaction(h -> {
            for (String id : List.of("a", "b", "c")) {
                outbox.enqueue(h, new OutboxMessage(id, "t", null, OutboxTest.bytes(id)));
            }
        });
        DataSource failing = CrashingDataSource.wrap(backend.dataSource(), hook, down::get);
        Outbox view = Outbox.builder(failing).tableName(outbox.tableName()).clock(clock).build();
        return view.relay(r -> {
            if (r.eventId().equals("b")) {
                throw new IOException("broker refused b");
            }
        }).maxAttempts(3).backoff(OutboxTest.backoff(3)).listener(batches::add).build();
    }

    /** Fails the first commit only: {@code before} it reaches the database or {@code after}. */
    private static CrashingDataSource.CommitHook firstCommitFails(boolean after, Runnable then) {
        AtomicBoolean first = new AtomicBoolean(true);
        return new CrashingDataSource.CommitHook() {
            @Override
            public void before() throws SQLException {
                if (!after && first.getAndSet(false)) {
                    then.run();
                    throw new SQLException("connection reset before the commit was sent");
                }
            }

            @Override
            public void after() throws SQLException {
                if (after && first.getAndSet(false)) {
                    then.run();
                    throw new SQLException("connection reset: the commit landed, its answer was lost");
                }
            }
        };
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCommitThatLandedButWhoseAnswerWasLostIsSettledAsCommittedFromTheRows(Backend backend) {
        Outbox outbox = OutboxTest.outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        Relay relay = relay(backend, outbox, firstCommitFails(true, () -> { }), new AtomicBoolean());

        // Before the fix runOnce threw and the batch was reported as rolled back with its rows
        // "pending again", while the table held two sent rows and one rescheduled.
        assertThat(relay.runOnce()).isEqualTo(3);
        assertThat(OutboxTest.count(jdbi, outbox, "S")).isEqualTo(2);
        assertThat(batches).singleElement().satisfies(b -> {
            assertThat(b.committed()).isTrue();
            assertThat(b.sent()).isEqualTo(2);
            assertThat(b.retried()).isEqualTo(1);
            assertThat(b.failure()).hasStackTraceContaining("answer was lost");
        });
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCommitThatNeverReachedTheDatabaseIsSettledAsRolledBackAndTheRowsAreClaimedAgain(Backend backend) {
        Outbox outbox = OutboxTest.outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        Relay relay = relay(backend, outbox, firstCommitFails(false, () -> { }), new AtomicBoolean());

        assertThatThrownBy(relay::runOnce).hasStackTraceContaining("before the commit was sent");
        assertThat(batches).singleElement().satisfies(b -> {
            assertThat(b.outcome()).isEqualTo(RelayBatch.Outcome.ROLLED_BACK);
            assertThat(b.committed()).isFalse();
            assertThat(b.claimed()).isEqualTo(3);
        });
        assertThat(OutboxTest.count(jdbi, outbox, "P")).isEqualTo(3);

        assertThat(relay.runOnce()).isEqualTo(3);
        assertThat(batches.get(1).outcome()).isEqualTo(RelayBatch.Outcome.COMMITTED);
        assertThat(OutboxTest.count(jdbi, outbox, "S")).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLostCommitWhoseRowsCannotBeReReadStaysUnknownAndTheTableSaysWhatHappened(Backend backend) {
        Outbox outbox = OutboxTest.outbox(backend, clock);
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        AtomicBoolean down = new AtomicBoolean();
        // The commit lands, the connection breaks, and the database cannot be reached to re-read.
        Relay relay = relay(backend, outbox, firstCommitFails(true, () -> down.set(true)), down);

        assertThatThrownBy(relay::runOnce).hasStackTraceContaining("answer was lost");
        assertThat(batches).singleElement().satisfies(b -> {
            assertThat(b.outcome()).isEqualTo(RelayBatch.Outcome.UNKNOWN);
            assertThat(b.committed()).isFalse();
        });
        assertThat(OutboxTest.count(jdbi, outbox, "S")).as("it had landed").isEqualTo(2);

        down.set(false);
        clock.advance(java.time.Duration.ofHours(1));
        assertThat(relay.runOnce()).as("only the rescheduled row is left").isEqualTo(1);
        assertThat(batches.get(1).outcome()).isEqualTo(RelayBatch.Outcome.COMMITTED);
    }
}
