package dev.idem.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.MutableClock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shutdown during a publish: the relay's thread is interrupted while its publisher waits for a
 * broker that never answers, with {@code maxAttempts(1)}, so a publish counted as failed would
 * dead-letter the row. Whatever the publisher does with the interrupt (throws
 * {@link InterruptedException}, wraps it in an unchecked exception, or throws something else
 * with the flag left set), {@code run} ends at once with {@link InterruptedException}, the batch
 * rolled back: every row pending, no attempt counted, nothing dead-lettered.
 */
@Timeout(120)
class RelayInterruptTest {
    /** What a publisher makes of the interrupt. */
    enum Reaction {
        THROWS_INTERRUPTED,
        WRAPS_IT,
        SETS_THE_FLAG_AND_THROWS_ANOTHER
    }

    @ParameterizedTest
    @EnumSource(Reaction.class)
    void anInterruptDuringAPublishEndsTheRunWithTheBatchRolledBack(Reaction reaction) throws Exception {
        Outbox outbox = OutboxTest.outbox(Backend.H2, new MutableClock());
        Jdbi jdbi = Jdbi.create(Backend.H2.dataSource());
        jdbi.useTransaction(h -> {
            for (String id : List.of("a", "b", "c")) {
                outbox.enqueue(h, new OutboxMessage(id, "t", null, OutboxTest.bytes(id)));
            }
        });
        CountDownLatch publishing = new CountDownLatch(1);
        List<String> dead = new CopyOnWriteArrayList<>();
        Relay relay = outbox.relay(r -> {
            publishing.countDown();
            try {
                Thread.sleep(TimeUnit.MINUTES.toMillis(10));   // a broker that never answers
            } catch (InterruptedException e) {
                switch (reaction) {
                    case THROWS_INTERRUPTED -> throw e;
                    case WRAPS_IT -> throw new IllegalStateException("send interrupted", e);
                    default -> {
                        Thread.currentThread().interrupt();
                        throw new java.io.IOException("connection closed");
                    }
                }
            }
        }).maxAttempts(1).onDeadLetter(r -> dead.add(r.eventId())).build();

        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                relay.run(() -> true);
            } catch (Throwable e) {
                ended.set(e);
            }
        }, "relay");
        worker.start();
        assertThat(publishing.await(30, TimeUnit.SECONDS)).isTrue();
        worker.interrupt();
        worker.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(worker.isAlive()).as("the run ended").isFalse();
        assertThat(ended.get()).isInstanceOf(InterruptedException.class);
        assertThat(OutboxTest.count(jdbi, outbox, "P")).as("every row still pending").isEqualTo(3);
        int attempts = jdbi.withHandle(h -> h.createQuery("SELECT MAX(attempts) FROM " + outbox.tableName())
                .mapTo(Integer.class).one());
        assertThat(attempts).as("no attempt counted").isZero();
        assertThat(dead).isEmpty();
    }
}
