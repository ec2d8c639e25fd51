package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.messaging.Inbox;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's two loops, as written there, on the shared in-process broker: an outbox relayed
 * through {@link KafkaPublisher} and read by a consumer group through {@link KafkaInboxHandler},
 * and a share group read through {@link KafkaShareInboxHandler}. Each books every event once,
 * parks the poison record on {@code <topic>.DLT} and leaves its group with nothing outstanding.
 */
@Timeout(120)
class KafkaReadmeExamplesTest {
    private static final Kafka KAFKA = Kafka.shared();
    private static final int EVENTS = 6;

    private final Map<String, Integer> ledger = new ConcurrentHashMap<>();
    private final AtomicInteger pauses = new AtomicInteger();
    /** The application's pause after a failed poll; none fails here, so it counts. */
    private final Runnable backoff = pauses::incrementAndGet;

    private Inbox<Integer> inbox() {
        return Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create()).consumer("ledger")
                .handler(m -> ledger.merge(m.eventId(), 1, Integer::sum)).build();
    }

    @Test
    void theEmbeddedBrokerAsTheReadmeShowsIt() throws Exception {
        String topic = "readme.payments-" + UUID.randomUUID();
        // tag::embedded-broker[]
        // One KRaft broker (broker and controller in one node) in this JVM, started on first use
        // and stopped at exit; EmbeddedKafka.start() gives a broker of the test's own to close.
        String bootstrap = EmbeddedKafka.bootstrap();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        // end::embedded-broker[]
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            assertThat(admin.listTopics().names().get(60, TimeUnit.SECONDS)).contains(topic);
        }
    }

    @Test
    void consumerGroupLoopAndRelayAsTheReadmeShowsThem() throws Exception {
        String topic = KAFKA.topic("readme.charges", 2);
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:kafka-readme-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        Outbox outbox = Outbox.builder(ds).build().createTableIfNotExists();
        Jdbi.create(ds).useTransaction(h -> {
            for (int i = 0; i < EVENTS; i++) {
                outbox.enqueue(h, new OutboxMessage("charge-" + i, topic, "customer-" + (i % 3),
                        ("{\"charge\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
        });
        String group = "readme-" + UUID.randomUUID();
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);
        Inbox<Integer> inbox = inbox();
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer();
                KafkaConsumer<byte[], byte[]> consumer = KAFKA.consumer(group)) {
            producer.send(Kafka.record(topic, 0, null, "", new byte[0])).get(30, TimeUnit.SECONDS); // poison
            consumer.subscribe(List.of(topic));
            AtomicInteger polls = new AtomicInteger();
            BooleanSupplier running = () -> polls.incrementAndGet() <= 150
                    && !(ledger.size() == EVENTS && KAFKA.drained(group, partitions));
            // tag::relay[]
            Relay relay = outbox.relay(new KafkaPublisher(producer, "payments", Duration.ofSeconds(10))).build();
            while (relay.runOnce() > 0) {
                // a batch was published; or relay.run(keepGoing) on a thread of its own
            }
            // end::relay[]
            // tag::consumer-group[]
            // consumer: new KafkaConsumer<>(props) with enable.auto.commit=false, subscribed to the topic
            KafkaInboxHandler<Integer> handler = KafkaInboxHandler.builder(inbox)
                    .deadLetterTopic(producer)                 // poison records to <topic>.DLT
                    .commitTimeout(Duration.ofSeconds(10))
                    .deadLetterTimeout(Duration.ofSeconds(5))  // the whole dead-letter step, max.block.ms included
                    .build();
            while (running.getAsBoolean()) {
                PollResult r = handler.pollOnce(consumer, Duration.ofMillis(500));
                if (r.failed()) {
                    backoff.run();                             // the same records come straight back
                }
            }
            // end::consumer-group[]
        }

        assertThat(ledger).hasSize(EVENTS).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
        assertThat(KAFKA.drained(group, partitions)).as("committed past every record").isTrue();
        assertThat(KAFKA.read(topic + ".DLT", 1)).as("the poison record, parked").hasSize(1);
        assertThat(pauses).hasValue(0);
    }

    @Test
    void shareGroupLoopAsTheReadmeShowsIt() throws Exception {
        String topic = KAFKA.topic("readme.shared", 2);
        String group = "readme-share-" + UUID.randomUUID();
        KAFKA.shareGroup(group, 30_000, 5);
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);
        Inbox<Integer> inbox = inbox();
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer();
                KafkaShareConsumer<byte[], byte[]> consumer = KAFKA.shareConsumer(group);
                Kafka.ShareGroupWatch watch = KAFKA.watch(group, partitions)) {
            for (int i = 0; i < EVENTS; i++) {
                producer.send(Kafka.record(topic, i % 2, null, "evt-" + i,
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
            }
            producer.send(Kafka.record(topic, 1, null, "", new byte[0])).get(30, TimeUnit.SECONDS); // poison
            AtomicInteger polls = new AtomicInteger();
            BooleanSupplier running = () -> {
                try {
                    return polls.incrementAndGet() <= 150 && !(ledger.size() == EVENTS && watch.drained());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            // tag::share-group[]
            // consumer: new KafkaShareConsumer<>(props) with share.acknowledgement.mode=explicit
            KafkaShareInboxHandler<Integer> handler = KafkaShareInboxHandler.builder(inbox)
                    .deadLetterTopic(producer)                 // poison and exhausted records to <topic>.DLT
                    .maxDeliveries(4)                          // below the group's share.delivery.count.limit
                    .build();
            consumer.subscribe(List.of(topic));
            while (running.getAsBoolean()) {
                SharePollResult r = handler.pollOnce(consumer, Duration.ofMillis(500));
                if (r.failed()) {
                    backoff.run();                             // renewed records come straight back
                }
            }
            // end::share-group[]
            assertThat(watch.drained()).as("every record accepted or rejected").isTrue();
        }

        assertThat(ledger).hasSize(EVENTS).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
        assertThat(KAFKA.read(topic + ".DLT", 1)).as("the poison record, parked").hasSize(1);
        assertThat(pauses).hasValue(0);
    }
}
