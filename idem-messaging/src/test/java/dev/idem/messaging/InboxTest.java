package dev.idem.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.RequestInProgressException;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The inbox's contract on the memory store. */
@Timeout(60)
class InboxTest {
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final List<InboxEvent> events = new CopyOnWriteArrayList<>();
    private final List<Mismatch> mismatches = new CopyOnWriteArrayList<>();
    private final List<DeadLetter> deadLetters = new CopyOnWriteArrayList<>();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Inbox.Builder<String> inbox(MessageHandler<String> handler) {
        return Inbox.builder(String.class).store(store).consumer("ledger").handler(handler)
                .listener(events::add).onMismatch(mismatches::add).onDeadLetter(deadLetters::add);
    }

    private List<InboxEvent.Type> eventTypes() {
        return events.stream().map(InboxEvent::type).toList();
    }

    @Test
    void handlesOnceAndAcknowledgesRedeliveriesWithTheStoredResult() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> "booked-" + m.eventId() + "-" + runs.incrementAndGet()).build();

        Delivery<String> first = inbox.handle("payments", "evt-1", bytes("{\"amount\":10}"));
        Delivery<String> again = inbox.handle("payments", "evt-1", bytes("{\"amount\":10}"));

        assertThat(first.status()).isEqualTo(Delivery.Status.HANDLED);
        assertThat(first.duplicate()).isFalse();
        assertThat(first.result()).isEqualTo("booked-evt-1-1");
        assertThat(again.status()).isEqualTo(Delivery.Status.HANDLED);
        assertThat(again.duplicate()).isTrue();
        assertThat(again.result()).isEqualTo("booked-evt-1-1");
        assertThat(runs).hasValue(1);
        assertThat(eventTypes()).containsExactly(InboxEvent.Type.HANDLED, InboxEvent.Type.DUPLICATE);
    }

    @Test
    void endedTellsWhetherAnEventEndedWithoutRunningOrClaimingAnything() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("blip");
            }
            return "ok";
        }).build();

        assertThat(inbox.ended("payments", "evt-1")).isFalse();
        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("a"))).hasMessage("blip");
        assertThat(inbox.ended("payments", "evt-1")).as("released after a transient failure").isFalse();
        inbox.handle("payments", "evt-1", bytes("a"));
        assertThat(inbox.ended("payments", "evt-1")).isTrue();
        assertThat(inbox.ended("refunds", "evt-1")).isFalse();
        assertThat(runs).hasValue(2);
        assertThatThrownBy(() -> inbox.ended("payments", "")).isInstanceOf(PoisonMessageException.class);
    }

    @Test
    void sameEventIdFromAnotherSourceOrForAnotherConsumerIsAnotherEvent() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> ledger = inbox(m -> "x" + runs.incrementAndGet()).build();
        Inbox<Void> mailer = Inbox.builder(Void.class).store(store).consumer("mailer").handler(m -> {
            runs.incrementAndGet();
            return null;
        }).build();

        ledger.handle("payments", "evt-1", bytes("a"));
        ledger.handle("refunds", "evt-1", bytes("a"));
        Delivery<Void> mailed = mailer.handle("payments", "evt-1", bytes("a"));

        assertThat(runs).hasValue(3);
        assertThat(mailed.status()).isEqualTo(Delivery.Status.HANDLED);
        assertThat(mailed.result()).isNull();
    }

    @Test
    void sameEventIdWithAnotherPayloadGoesToTheMismatchCallbackAndRunsNothing() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> "ok" + runs.incrementAndGet()).build();
        inbox.handle("payments", "evt-1", bytes("{\"amount\":10}"));

        Delivery<String> poison = inbox.handle("payments", "evt-1", bytes("{\"amount\":99}"));

        assertThat(poison.status()).isEqualTo(Delivery.Status.MISMATCH);
        assertThat(runs).hasValue(1);
        assertThat(mismatches).singleElement().satisfies(m -> {
            assertThat(m.eventId()).isEqualTo("evt-1");
            assertThat(m.source()).isEqualTo("payments");
            assertThat(m.consumer()).isEqualTo("ledger");
            assertThat((byte[]) m.payload()).isEqualTo(bytes("{\"amount\":99}"));
        });
        assertThat(eventTypes()).containsExactly(InboxEvent.Type.HANDLED, InboxEvent.Type.MISMATCH);
    }

    @Test
    void transientFailuresRethrowAndTheHandlerSeesTheAttemptNumber() {
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        Inbox<String> inbox = inbox(m -> {
            attempts.add(m.attempt());
            if (m.attempt() < 3) {
                throw new IllegalStateException("broker of the downstream is down");
            }
            return "done at " + m.attempt();
        }).build();

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p")))
                    .isInstanceOf(IllegalStateException.class);
        }
        Delivery<String> third = inbox.handle("payments", "evt-1", bytes("p"));

        assertThat(attempts).containsExactly(1, 2, 3);
        assertThat(third.result()).isEqualTo("done at 3");
        assertThat(third.attempt()).isEqualTo(3);
        assertThat(deadLetters).isEmpty();
        assertThat(eventTypes()).containsExactly(InboxEvent.Type.TRANSIENT_FAILURE,
                InboxEvent.Type.TRANSIENT_FAILURE, InboxEvent.Type.HANDLED);
    }

    @Test
    void deadLettersOnceAfterMaxAttemptsFailures() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> {
            runs.incrementAndGet();
            throw new IllegalStateException("failure " + m.attempt());
        }).maxAttempts(3).build();

        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p")));
        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p")));
        Delivery<String> third = inbox.handle("payments", "evt-1", bytes("p"));
        Delivery<String> fourth = inbox.handle("payments", "evt-1", bytes("p"));

        assertThat(third.status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        assertThat(third.duplicate()).isFalse();
        assertThat(third.failureCode()).isEqualTo("attempts_exhausted");
        assertThat(fourth.status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        assertThat(fourth.duplicate()).isTrue();
        assertThat(runs).hasValue(3);
        assertThat(deadLetters).singleElement().satisfies(d -> {
            assertThat(d.attempt()).isEqualTo(3);
            assertThat(d.reason()).isEqualTo(DeadLetter.Reason.ATTEMPTS_EXHAUSTED);
            assertThat(d.cause()).hasMessage("failure 3");
        });
    }

    @Test
    void finalFailuresAreRecordedDeadLetteredOnceAndNeverRetried() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("unknown account");
        }).failureClassifier(e -> e instanceof IllegalArgumentException
                ? FailureDecision.finalFailure("bad_event", e.getMessage()) : FailureDecision.transientFailure())
                .build();

        Delivery<String> first = inbox.handle("payments", "evt-1", bytes("p"));
        Delivery<String> again = inbox.handle("payments", "evt-1", bytes("p"));

        assertThat(first.status()).isEqualTo(Delivery.Status.FAILED);
        assertThat(first.failureCode()).isEqualTo("bad_event");
        assertThat(first.failureMessage()).isEqualTo("unknown account");
        assertThat(again.status()).isEqualTo(Delivery.Status.FAILED);
        assertThat(again.duplicate()).isTrue();
        assertThat(runs).hasValue(1);
        assertThat(deadLetters).singleElement().extracting(DeadLetter::reason)
                .isEqualTo(DeadLetter.Reason.FINAL_FAILURE);
        assertThat(eventTypes()).containsExactly(InboxEvent.Type.FINAL_FAILURE, InboxEvent.Type.DEAD_LETTERED,
                InboxEvent.Type.DUPLICATE);
    }

    @Test
    void aFailingDeadLetterCallbackIsRetriedByRedelivery() {
        AtomicInteger calls = new AtomicInteger();
        Inbox<String> inbox = Inbox.builder(String.class).store(store).consumer("ledger").maxAttempts(1)
                .handler(m -> {
                    throw new IllegalStateException("down");
                })
                .onDeadLetter(d -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new java.io.IOException("dead-letter topic unreachable");
                    }
                }).build();

        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p")))
                .hasRootCauseInstanceOf(java.io.IOException.class);
        Delivery<String> second = inbox.handle("payments", "evt-1", bytes("p"));

        assertThat(second.status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        assertThat(calls).hasValue(2);
    }

    @Test
    void aConsumerThatCrashedMidHandlingCountsAsAnAttempt() {
        // The engine's lease is 1 ms and the store's clock moves on by hand: the crashed
        // consumer's claim lapses without any real waiting.
        MutableClock clock = new MutableClock();
        MemoryIdempotencyStore clocked = MemoryIdempotencyStore.builder().clock(clock).build();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(clocked).clock(clock)
                .lease(Duration.ofMillis(10)).build();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        Inbox<String> inbox = Inbox.builder(String.class).engine(engine).consumer("ledger").maxAttempts(2)
                .onDeadLetter(deadLetters::add).handler(m -> {
                    attempts.add(m.attempt());
                    throw new Crash();
                }).build();

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p"))).isInstanceOf(Crash.class);
        }
        clock.advance(Duration.ofSeconds(1));
        Delivery<String> third = inbox.handle("payments", "evt-1", bytes("p"));

        // Errors release the key like a crash that was noticed; the attempt numbers still count up.
        assertThat(attempts).containsExactly(1, 2);
        assertThat(third.status()).isEqualTo(Delivery.Status.DEAD_LETTERED);
        assertThat(deadLetters).singleElement().satisfies(d -> {
            assertThat(d.cause()).isNull();
            assertThat(d.attempt()).isEqualTo(3);
        });
    }

    @Test
    void aDeliveryOfAnEventInProgressElsewhereIsNotAcknowledged() throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Inbox<String> inbox = inbox(m -> {
            inHandler.countDown();
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            return "ok";
        }).build();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Delivery<String>> first = pool.submit(() -> inbox.handle("payments", "evt-1", bytes("p")));
            assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("p")))
                    .isInstanceOf(RequestInProgressException.class);

            release.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(Delivery.Status.HANDLED);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aDeliveryWithAnInvalidEventIdOrAnOversizedPayloadIsPoisonAndNothingRuns() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = Inbox.builder(String.class)
                .engine(IdempotencyEngine.builder().store(store).maxRequestBytes(8).build())
                .consumer("ledger").handler(m -> "run-" + runs.incrementAndGet()).build();

        assertThatThrownBy(() -> inbox.handle("payments", "", bytes("{}")))
                .isInstanceOfSatisfying(PoisonMessageException.class, e -> {
                    assertThat(e.reason()).isEqualTo(PoisonMessageException.Reason.INVALID_KEY);
                    assertThat(e.getCause()).isInstanceOf(dev.idem.api.InvalidIdempotencyKeyException.class);
                    assertThat(e.httpStatus()).isEqualTo(400);
                });
        assertThatThrownBy(() -> inbox.handle("pay\nments", "evt-1", bytes("{}")))
                .isInstanceOf(PoisonMessageException.class);
        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("123456789")))
                .isInstanceOfSatisfying(PoisonMessageException.class, e -> {
                    assertThat(e.reason()).isEqualTo(PoisonMessageException.Reason.INVALID_PAYLOAD);
                    assertThat(e.httpStatus()).isEqualTo(413);
                });

        assertThat(runs).hasValue(0);
        // Nothing was stored: the event id is still free for a valid delivery.
        assertThat(inbox.handle("payments", "evt-1", bytes("12345678")).result()).isEqualTo("run-1");
    }

    @Test
    void theSameExceptionTypesThrownByTheHandlerAreHandlerFailuresNotPoison() {
        AtomicInteger runs = new AtomicInteger();
        Inbox<String> inbox = inbox(m -> {
            if (runs.incrementAndGet() == 1) {
                throw new dev.idem.api.InvalidRequestException("downstream refused the request");
            }
            return "ok";
        }).build();

        assertThatThrownBy(() -> inbox.handle("payments", "evt-1", bytes("{}")))
                .isExactlyInstanceOf(dev.idem.api.InvalidRequestException.class);
        assertThat(inbox.handle("payments", "evt-1", bytes("{}")).result()).isEqualTo("ok");
        assertThat(runs).hasValue(2);
    }

    @Test
    void builderValidates() {
        assertThatThrownBy(() -> Inbox.builder(String.class).store(store).handler(m -> "").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("consumer");
        assertThatThrownBy(() -> Inbox.builder(String.class).consumer("c").handler(m -> "").build())
                .hasMessageContaining("engine and store");
        assertThatThrownBy(() -> Inbox.builder(String.class).store(store).consumer("c").build())
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> Inbox.builder(String.class).consumer("c").consumer("d"))
                .hasMessageContaining("already set");
        assertThatThrownBy(() -> Inbox.builder(String.class).maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThatThrownBy(() -> Inbox.builder(String.class).consumer(""))
                .isInstanceOf(dev.idem.api.InvalidIdempotencyKeyException.class);
    }

    /** Stands for a consumer process dying in the middle of the handler. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }
}
