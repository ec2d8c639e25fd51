package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.messaging.Inbox;
import dev.idem.messaging.Mismatch;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One inbox reads two partners' topics, each topic writable by its partner alone (the broker's
 * ACLs). Partner B writes, on its own topic, a record whose {@code idem-source} header names
 * partner A, with the event id A uses next and a payout to mallory; then A's genuine event
 * arrives. By default the inbox scopes each event by its topic: B's record is B's event, and A's
 * is handled as A's. Trusting the header (what both handlers did before it became an explicit
 * choice) lets B's record run as A's event and answers A's as a mismatch, never handled. Both
 * handlers, classic consumer group and share group, on the in-process broker.
 */
@Timeout(120)
class KafkaSourceSpoofTest {
    private static final Kafka KAFKA = Kafka.shared();
    private static KafkaProducer<byte[], byte[]> producer;

    /** What the inbox's handler ran: its source, event id and payload. */
    record Handled(String source, String eventId, String payload) {
    }

    private final List<Handled> handled = new CopyOnWriteArrayList<>();
    private final List<Mismatch> mismatches = new CopyOnWriteArrayList<>();
    private String topicA;
    private String topicB;

    @BeforeAll
    static void producer() {
        producer = KAFKA.producer();
    }

    @AfterAll
    static void close() {
        producer.close(Duration.ofSeconds(10));
    }

    private Inbox<Integer> inbox() {
        return Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create()).consumer("payouts")
                .onMismatch(mismatches::add)
                .handler(m -> {
                    handled.add(new Handled(m.source(), m.eventId(),
                            new String((byte[]) m.payload(), StandardCharsets.UTF_8)));
                    return handled.size();
                })
                .build();
    }

    private void topics() throws Exception {
        topicA = KAFKA.topic("partner-a", 1);
        topicB = KAFKA.topic("partner-b", 1);
    }

    /** A record as a partner writes it, naming itself (or whom it pretends to be) in the source header. */
    private static void send(String topic, String source, String eventId, String payload) throws Exception {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, null,
                payload.getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.EVENT_ID, eventId.getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.SOURCE, source.getBytes(StandardCharsets.UTF_8));
        producer.send(r).get(30, TimeUnit.SECONDS);
    }

    /** B's spoof first, handled; then A's genuine event, handled or mismatched. */
    private void spoofThenGenuine(java.util.function.Consumer<BooleanSupplier> pollUntil) throws Exception {
        send(topicB, "partner-a", "payout-1001", "{\"to\":\"mallory\"}");
        pollUntil.accept(() -> handled.size() == 1);
        assertThat(handled).as("the spoof was handled").hasSize(1);
        send(topicA, "partner-a", "payout-1001", "{\"to\":\"alice\"}");
        pollUntil.accept(() -> handled.size() + mismatches.size() == 2);
    }

    private void assertIsolated() {
        assertThat(handled).containsExactly(
                new Handled(topicB, "payout-1001", "{\"to\":\"mallory\"}"),
                new Handled(topicA, "payout-1001", "{\"to\":\"alice\"}"));
        assertThat(mismatches).isEmpty();
    }

    private void assertSpoofed() {
        assertThat(handled).containsExactly(new Handled("partner-a", "payout-1001", "{\"to\":\"mallory\"}"));
        assertThat(mismatches).singleElement().satisfies(m -> {
            assertThat(m.source()).isEqualTo("partner-a");
            assertThat(new String((byte[]) m.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"to\":\"alice\"}");
        });
    }

    private void consumerGroup(KafkaInboxHandler<Integer> handler) throws Exception {
        topics();
        try (KafkaConsumer<byte[], byte[]> consumer = KAFKA.consumer("payouts-" + UUID.randomUUID())) {
            consumer.assign(List.of(Kafka.partitions(topicA, 1).get(0), Kafka.partitions(topicB, 1).get(0)));
            spoofThenGenuine(done -> {
                for (int poll = 0; poll < 150 && !done.getAsBoolean(); poll++) {
                    handler.pollOnce(consumer, Duration.ofMillis(100));
                }
            });
        }
    }

    private void shareGroup(KafkaShareInboxHandler<Integer> handler) throws Exception {
        topics();
        String group = "payouts-" + UUID.randomUUID();
        KAFKA.shareGroup(group, 2_000, 5);
        try (KafkaShareConsumer<byte[], byte[]> consumer = KAFKA.shareConsumer(group)) {
            consumer.subscribe(List.of(topicA, topicB));
            spoofThenGenuine(done -> {
                for (int poll = 0; poll < 150 && !done.getAsBoolean(); poll++) {
                    handler.pollOnce(consumer, Duration.ofMillis(100));
                }
            });
        }
    }

    @Test
    void aConsumerGroupScopesEachEventByItsTopic() throws Exception {
        consumerGroup(KafkaInboxHandler.builder(inbox()).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build());
        assertIsolated();
    }

    @Test
    void aConsumerGroupThatTrustsTheSourceHeaderRunsTheSpoofAsTheOthersEvent() throws Exception {
        consumerGroup(KafkaInboxHandler.builder(inbox()).trustSourceHeader().onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build());
        assertSpoofed();
    }

    @Test
    void aShareGroupScopesEachEventByItsTopic() throws Exception {
        shareGroup(KafkaShareInboxHandler.builder(inbox()).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build());
        assertIsolated();
    }

    @Test
    void aShareGroupThatTrustsTheSourceHeaderRunsTheSpoofAsTheOthersEvent() throws Exception {
        shareGroup(KafkaShareInboxHandler.builder(inbox()).trustSourceHeader().onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build());
        assertSpoofed();
    }
}
