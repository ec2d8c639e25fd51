package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.messaging.Inbox;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Outbox on H2, relay through {@link KafkaPublisher} to a real Kafka broker (KRaft, in
 * process), consumers through {@link KafkaInboxHandler}: the relay dies after publishing and
 * before marking sent, and consumers die (seeded) between the inbox and the offset commit and
 * right after polling, many times. Each event is handled exactly once.
 */
@Timeout(180)
class KafkaEndToEndTest {
    private static final int EVENTS = 30;

    private static Properties producerProps() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        return p;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    @Test
    void eachEventIsBookedOnceThroughRelayAndConsumerCrashes() throws Exception {
        String topic = "charge.created." + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafka.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:kafka-e2e;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        Outbox outbox = Outbox.builder(ds).build().createTableIfNotExists();
        Jdbi.create(ds).useTransaction(h -> {
            for (int i = 0; i < EVENTS; i++) {
                outbox.enqueue(h, new OutboxMessage("charge-" + i, topic, "customer-" + (i % 5),
                        ("{\"charge\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
        });

        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
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
                    // Every fourth event fails transiently once: the handler seeks back and retries.
                    if (m.eventId().hashCode() % 4 == 0 && failedOnce.add(m.eventId())) {
                        throw new IllegalStateException("ledger database blip");
                    }
                    return ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
                }).build();
        KafkaInboxHandler<Integer> handler = new KafkaInboxHandler<>(inbox);
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        Random random = new Random(14);
        int deliveries = 0;
        int crashes = 0;
        String group = "ledger-" + UUID.randomUUID();
        for (int round = 0; round < 300 && !drained(group, partitions); round++) {
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
                consumer.assign(partitions);
                polls:
                for (int poll = 0; poll < 20; poll++) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        deliveries++;
                        int fate = random.nextInt(10);
                        if (fate == 0) {
                            crashes++;
                            break polls; // dies right after the poll
                        }
                        if (fate == 1) {
                            // dies after the inbox completed and before the offset commit
                            try {
                                inbox.handle(KafkaHeaders.text(record.headers(), KafkaHeaders.SOURCE),
                                        KafkaHeaders.text(record.headers(), KafkaHeaders.EVENT_ID), record.value());
                            } catch (IllegalStateException e) {
                                // The transient blip can land here too (delivery order varies between runs);
                                // the consumer dies either way and the record is redelivered.
                            }
                            crashes++;
                            break polls;
                        }
                        try {
                            handler.handle(consumer, record);
                        } catch (IllegalStateException e) {
                            continue polls; // seeked back: the next poll redelivers it
                        }
                    }
                }
            }
        }

        assertThat(drained(group, partitions)).isTrue();
        assertThat(ledger).hasSize(EVENTS);
        assertThat(ledger.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(crashes).isPositive();
        assertThat(deliveries).isGreaterThan(EVENTS + 7);
    }

    @Test
    void pollOnceCommitsHandledRecordsAndSendsAReusedEventIdToTheMismatchCallback() throws Exception {
        String topic = "refund.created." + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafka.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps())) {
            KafkaPublisher kafka = new KafkaPublisher(producer, "refunds", Duration.ofSeconds(30));
            for (int i = 0; i < 5; i++) {
                kafka.publish(new dev.idem.outbox.jdbc.OutboxRecord(i, "refund-" + i, topic, null,
                        ("{\"refund\":" + i + "}").getBytes(StandardCharsets.UTF_8), 1, java.time.Instant.EPOCH));
            }
            // A producer bug: refund-2 again with another body.
            kafka.publish(new dev.idem.outbox.jdbc.OutboxRecord(9, "refund-2", topic, null,
                    "{\"refund\":99}".getBytes(StandardCharsets.UTF_8), 1, java.time.Instant.EPOCH));
        }
        Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
        List<dev.idem.messaging.Mismatch> mismatches = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger blips = new AtomicInteger();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create())
                .consumer("refund-ledger").onMismatch(mismatches::add).handler(m -> {
                    if (m.eventId().equals("refund-3") && blips.incrementAndGet() == 1) {
                        throw new IllegalStateException("blip");
                    }
                    return ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
                }).build();
        KafkaInboxHandler<Integer> handler = new KafkaInboxHandler<>(inbox);
        String group = "refund-ledger-" + UUID.randomUUID();
        List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0));
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
            consumer.assign(partitions);
            int handled = 0;
            for (int poll = 0; poll < 100 && handled < 6; poll++) {
                handled += handler.pollOnce(consumer, Duration.ofMillis(200));
            }
            assertThat(handled).isEqualTo(6);
        }

        assertThat(drained(group, partitions)).isTrue();
        assertThat(ledger).hasSize(5);
        assertThat(ledger.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(blips).hasValue(2);
        assertThat(mismatches).singleElement().satisfies(m -> {
            assertThat(m.eventId()).isEqualTo("refund-2");
            assertThat(m.source()).isEqualTo("refunds");
        });
    }

    /** Whether the group's committed offsets reached the end of every partition. */
    private static boolean drained(String group, List<TopicPartition> partitions) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(group)) {
            Map<TopicPartition, Long> end = c.endOffsets(partitions, Duration.ofSeconds(30));
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.copyOf(partitions),
                    Duration.ofSeconds(30));
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata at = committed.get(tp);
                if ((at == null ? 0 : at.offset()) < end.get(tp)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Stands for the relay's process dying mid-batch. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }
}
