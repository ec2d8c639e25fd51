package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.messaging.Inbox;
import dev.idem.messaging.PoisonMessageException;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRecordStateException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each decision of {@link KafkaShareInboxHandler} on one record, against a share consumer that
 * records the acknowledgements and answers the commit as the test says (the broker runs in
 * {@link KafkaShareInboxTest}).
 */
@Timeout(60)
class KafkaShareInboxHandlerTest {
    private static final TopicPartition P0 = new TopicPartition("orders", 0);

    private final Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
    private final List<String> parked = new ArrayList<>();
    private final Map<Long, AcknowledgeType> acks = new LinkedHashMap<>();
    private final AtomicBoolean storeDown = new AtomicBoolean();
    private KafkaException commitError;
    private boolean implicit;

    private final IdempotencyStore store = failing(MemoryIdempotencyStore.create(), storeDown);
    private final Inbox<Integer> inbox = Inbox.builder(Integer.class).store(store).consumer("ledger").maxAttempts(10)
            .handler(m -> {
                if (m.eventId().startsWith("flaky")) {
                    throw new IllegalStateException("ledger blip");
                }
                return ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
            }).build();

    private KafkaShareInboxHandler<Integer> handler(boolean parkingWorks) {
        return KafkaShareInboxHandler.builder(inbox).maxDeliveries(3).onPoison((r, e) -> {
            if (!parkingWorks) {
                throw new IOException("dead-letter topic unreachable");
            }
            parked.add(r.offset() + ":" + e.reason());
        }).build();
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String eventId, int deliveryCount) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaHeaders.EVENT_ID, eventId.getBytes(StandardCharsets.UTF_8));
        return new ConsumerRecord<>(P0.topic(), P0.partition(), offset, 0L, TimestampType.CREATE_TIME, 0, 1, null,
                ("{\"n\":" + offset + "}").getBytes(StandardCharsets.UTF_8), headers, Optional.empty(),
                Optional.of((short) deliveryCount));
    }

    private SharePollResult handle(KafkaShareInboxHandler<Integer> handler,
            List<ConsumerRecord<byte[], byte[]>> records) {
        return handler.handle(consumer(), new ConsumerRecords<>(Map.of(P0, records), Map.of()));
    }

    @SuppressWarnings("unchecked")
    private ShareConsumer<byte[], byte[]> consumer() {
        return (ShareConsumer<byte[], byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ShareConsumer.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "acknowledge":
                            if (implicit) {
                                throw new IllegalStateException("The consumer is not using explicit acknowledgement");
                            }
                            acks.put(((ConsumerRecord<?, ?>) args[0]).offset(), (AcknowledgeType) args[1]);
                            return null;
                        case "commitSync":
                            return Map.of(new TopicIdPartition(Uuid.randomUuid(), P0), Optional.ofNullable(commitError));
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    /** The store, unavailable (every call throws) while {@code down} says so. */
    private static IdempotencyStore failing(IdempotencyStore target, AtomicBoolean down) {
        return (IdempotencyStore) Proxy.newProxyInstance(KafkaShareInboxHandlerTest.class.getClassLoader(),
                new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
                    if (down.get() && !method.getName().equals("capabilities")) {
                        throw new StoreUnavailableException("store unreachable", null);
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aHandledEventIsAcceptedAndARepeatIsAcceptedWithoutRunningAgain() {
        SharePollResult r = handle(handler(true), List.of(record(0, "evt-0", 1), record(1, "evt-0", 2)));

        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.ACCEPT), Map.entry(1L, AcknowledgeType.ACCEPT));
        assertThat(ledger.get("evt-0")).hasValue(1);
        assertThat(r.accepted()).isEqualTo(2);
        assertThat(r.failed()).isFalse();
    }

    @Test
    void aTransientHandlerFailureIsReleased() {
        SharePollResult r = handle(handler(true), List.of(record(0, "flaky-0", 1), record(1, "evt-1", 1)));

        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.RELEASE), Map.entry(1L, AcknowledgeType.ACCEPT));
        assertThat(r.released()).isEqualTo(1);
        assertThat(r.failure()).hasMessage("ledger blip");
    }

    @Test
    void anEventInProgressUnderAnotherConsumerIsRenewedNotReleased() throws Exception {
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch mayFinish = new CountDownLatch(1);
        Inbox<Integer> slow = Inbox.builder(Integer.class).store(store).consumer("ledger").handler(m -> {
            working.countDown();
            assertThat(mayFinish.await(30, TimeUnit.SECONDS)).isTrue();
            return 1;
        }).build();
        CompletableFuture<?> first = CompletableFuture.runAsync(() -> slow.handle("orders", "evt-0", bytes("{\"n\":0}")));
        assertThat(working.await(30, TimeUnit.SECONDS)).isTrue();
        try {
            SharePollResult r = handle(handler(true), List.of(record(0, "evt-0", 2)));

            assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.RENEW));
            assertThat(r.renewed()).isEqualTo(1);
            assertThat(r.failure()).isInstanceOf(RequestInProgressException.class);
        } finally {
            mayFinish.countDown();
            first.get(30, TimeUnit.SECONDS);
        }
        acks.clear();
        handle(handler(true), List.of(record(0, "evt-0", 2)));       // renewed: the next poll returns it
        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.ACCEPT));
        assertThat(ledger).isEmpty();                                   // the slow inbox booked it, once
    }

    @Test
    void anUnavailableStoreRenewsTheRecordSoNoDeliveryIsSpentOnIt() {
        storeDown.set(true);
        SharePollResult r = handle(handler(true), List.of(record(0, "evt-0", 1), record(1, "evt-1", 4)));

        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.RENEW), Map.entry(1L, AcknowledgeType.RENEW));
        assertThat(r.failure()).isInstanceOf(StoreUnavailableException.class);
        assertThat(parked).as("past the limit, but whether it ended is unknown: kept, not parked").isEmpty();
    }

    @Test
    void pastTheDeliveryLimitAnEventThatEndedIsAcceptedAndOneThatDidNotIsParkedAndRejected() {
        handle(handler(true), List.of(record(0, "evt-0", 1)));
        acks.clear();

        SharePollResult r = handle(handler(true), List.of(record(0, "evt-0", 4), record(1, "flaky-1", 4)));

        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.ACCEPT), Map.entry(1L, AcknowledgeType.REJECT));
        assertThat(parked).containsExactly("1:DELIVERIES_EXHAUSTED");
        assertThat(r.rejected()).isEqualTo(1);
        assertThat(ledger.get("evt-0")).hasValue(1);
    }

    @Test
    void poisonIsParkedAndRejectedAndAFailedParkingKeepsTheRecord() {
        SharePollResult parkedOk = handle(handler(true), List.of(record(0, "", 1)));
        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.REJECT));
        assertThat(parked).containsExactly("0:INVALID_KEY");
        assertThat(parkedOk.rejected()).isEqualTo(1);

        acks.clear();
        SharePollResult notParked = handle(handler(false), List.of(record(0, "", 1), record(1, "flaky-1", 5)));
        assertThat(acks).containsExactly(Map.entry(0L, AcknowledgeType.RENEW), Map.entry(1L, AcknowledgeType.RENEW));
        assertThat(notParked.failure()).hasRootCauseMessage("dead-letter topic unreachable");
    }

    @Test
    void aFailedAcknowledgementCommitCountsItsRecordsUnconfirmed() {
        commitError = new InvalidRecordStateException("the acquisition lock lapsed");
        SharePollResult r = handle(handler(true), List.of(record(0, "evt-0", 1), record(1, "evt-1", 1)));

        assertThat(r.accepted()).isZero();
        assertThat(r.unconfirmed()).isEqualTo(2);
        assertThat(r.failure()).isSameAs(commitError);
    }

    @Test
    void aConsumerInImplicitModeIsRefusedWithTheSettingToChange() {
        implicit = true;
        assertThatThrownBy(() -> handle(handler(true), List.of(record(0, "evt-0", 1))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("share.acknowledgement.mode=explicit");
    }

    @Test
    void builderValidates() {
        assertThatThrownBy(() -> KafkaShareInboxHandler.builder(inbox).build()).hasMessageContaining("poison");
        assertThatThrownBy(() -> KafkaShareInboxHandler.builder(inbox).maxDeliveries(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThatThrownBy(() -> KafkaShareInboxHandler.builder(inbox).maxDeliveries(2).maxDeliveries(3))
                .hasMessageContaining("already set");
        assertThatThrownBy(() -> KafkaShareInboxHandler.builder(inbox).deadLetterTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
