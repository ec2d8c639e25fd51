package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.messaging.Inbox;
import dev.idem.messaging.Mismatch;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.OutboxRecord;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Outbox on H2, relay through {@link KafkaPublisher} to the in-process broker, consumers
 * through {@link KafkaInboxHandler}: the relay dies after publishing and before marking sent,
 * and consumers die (seeded) right after a poll or after the inbox completed and before the
 * offset commit, many times. Each event is handled exactly once and the group drains.
 */
@Timeout(180)
class KafkaEndToEndTest {
    private static final int EVENTS = 30;
    private static final Kafka KAFKA = Kafka.shared();

    @Test
    void eachEventIsBookedOnceThroughRelayAndConsumerCrashes() throws Exception {
        String topic = KAFKA.topic("charge.created", 2);
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:kafka-e2e;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        Outbox outbox = Outbox.builder(ds).build().createTableIfNotExists();
        Jdbi.create(ds).useTransaction(h -> {
            for (int i = 0; i < EVENTS; i++) {
                outbox.enqueue(h, new OutboxMessage("charge-" + i, topic, "customer-" + (i % 5),
                        ("{\"charge\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
        });

        try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer()) {
            KafkaPublisher kafka = new KafkaPublisher(producer, "payments", Duration.ofSeconds(30));
            AtomicInteger sends = new AtomicInteger();
            Relay dying = outbox.relay(r -> {
                kafka.publish(r);
                if (sends.incrementAndGet() == 7) {
                    throw new Crash();
                }
            }).build();
            assertThatThrownBy(dying::runOnce).isInstanceOf(Crash.class);
            Relay relay = outbox.relay(kafka).build();
            while (relay.runOnce() > 0) {
                // drain
            }
        }

        Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create())
                .consumer("ledger").maxAttempts(10).handler(m -> {
                    // Every fourth event fails transiently once: its partition is sought back and retried.
                    if (m.eventId().hashCode() % 4 == 0 && failedOnce.add(m.eventId())) {
                        throw new IllegalStateException("ledger database blip");
                    }
                    return ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
                }).build();
        KafkaInboxHandler<Integer> handler = KafkaInboxHandler.builder(inbox).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build();
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);
        Random random = new Random(14);
        int crashes = 0;
        String group = "ledger-" + UUID.randomUUID();
        for (int round = 0; round < 100 && !(ledger.size() == EVENTS && KAFKA.drained(group, partitions)); round++) {
            try (KafkaConsumer<byte[], byte[]> real = KAFKA.consumer(group)) {
                // Dies right after a poll returned, or after the inbox completed and before the commit.
                Consumer<byte[], byte[]> consumer = FaultyConsumer.wrap(real, (method, n) -> random.nextInt(6) == 0
                        ? (method.equals("poll") ? FaultyConsumer.Fault.after(new Crash())
                                : FaultyConsumer.Fault.before(new Crash())) : null);
                consumer.assign(partitions);
                for (int poll = 0; poll < 10; poll++) {
                    handler.pollOnce(consumer, Duration.ofMillis(100));
                }
            } catch (Crash e) {
                crashes++;
            }
        }

        assertThat(KAFKA.drained(group, partitions)).isTrue();
        assertThat(ledger).hasSize(EVENTS);
        assertThat(ledger.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(crashes).isPositive();
    }

    @Test
    void aReusedEventIdGoesToTheMismatchCallbackAndIsCommitted() throws Exception {
        String topic = KAFKA.topic("refund.created", 1);
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer()) {
            KafkaPublisher kafka = new KafkaPublisher(producer, "refunds", Duration.ofSeconds(30));
            for (int i = 0; i < 5; i++) {
                kafka.publish(new OutboxRecord(i, "refund-" + i, topic, null,
                        ("{\"refund\":" + i + "}").getBytes(StandardCharsets.UTF_8), 1, Instant.EPOCH));
            }
            // A producer bug: refund-2 again with another body.
            kafka.publish(new OutboxRecord(9, "refund-2", topic, null,
                    "{\"refund\":99}".getBytes(StandardCharsets.UTF_8), 1, Instant.EPOCH));
        }
        Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
        List<Mismatch> mismatches = new CopyOnWriteArrayList<>();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create())
                .consumer("refund-ledger").onMismatch(mismatches::add)
                .handler(m -> ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet())
                .build();
        KafkaInboxHandler<Integer> handler = KafkaInboxHandler.builder(inbox).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).build();
        String group = "refund-ledger-" + UUID.randomUUID();
        List<TopicPartition> partitions = Kafka.partitions(topic, 1);
        int committed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = KAFKA.consumer(group)) {
            consumer.assign(partitions);
            for (int poll = 0; poll < 100 && committed < 6; poll++) {
                committed += handler.pollOnce(consumer, Duration.ofMillis(200)).committed();
            }
        }

        assertThat(committed).isEqualTo(6);
        assertThat(KAFKA.drained(group, partitions)).isTrue();
        assertThat(ledger).hasSize(5);
        assertThat(ledger.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(mismatches).singleElement().satisfies(m -> {
            assertThat(m.eventId()).isEqualTo("refund-2");
            assertThat(m.source()).as("the topic, not the source header the producer wrote").isEqualTo(topic);
        });
    }

    /** Stands for a process dying. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }
}
