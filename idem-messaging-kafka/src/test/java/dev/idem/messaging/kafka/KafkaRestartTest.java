package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.RetryPolicy;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Inbox;
import dev.idem.micrometer.RelayMetrics;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.testsupport.kafka.EmbeddedKafka;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Restarts of everything: the broker dies in the middle of a consumer's poll (its offset commit
 * fails), stays down while the outbox fills and the relay backs off, then the relay, the
 * consumer, the database (H2 on disk) and the broker all restart. The broker is the shared one
 * (test classes run one after another; it is running again when this class ends).
 * From outside: a transactional inbox booked every event exactly once, each key's events in
 * enqueue order, the group drained, and the backoff showed in the relay's meters.
 */
@Timeout(240)
class KafkaRestartTest {
    private static final int KEYS = 4;
    private static final EmbeddedKafka BROKER = EmbeddedKafka.shared();

    @AfterEach
    void running() {
        BROKER.ensureRunning();
    }

    private static KafkaProducer<byte[], byte[]> relayProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // A send the broker cannot take fails within the publisher's timeout, never later: a
        // record the relay gave up on must not land after the row's retry.
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "500");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "1000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(p);
    }

    private static Relay relay(Outbox outbox, KafkaProducer<byte[], byte[]> producer, MutableClock clock,
            RelayMetrics metrics) {
        return outbox.relay(new KafkaPublisher(producer, "payments", Duration.ofSeconds(5))).clock(clock)
                .orderedByKey(true).batchSize(3).maxAttempts(1000).listener(metrics)
                .backoff(RetryPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofSeconds(30))
                        .deadline(Duration.ofDays(1)).random(new Random(21)).build())
                .build();
    }

    private static void enqueue(Jdbi jdbi, Outbox outbox, String topic, int from, int to) {
        jdbi.useTransaction(h -> {
            for (int i = from; i < to; i++) {
                outbox.enqueue(h, new OutboxMessage(String.format("e-%02d", i), topic, "k" + (i % KEYS),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
        });
    }

    @Test
    void theBacklogSurvivesRestartsOfBrokerRelayConsumerAndDatabaseWithoutLossOrReorder() throws Exception {
        Kafka kafka = new Kafka(BROKER.bootstrapServers());
        String topic = kafka.topic("restart", 2);
        Path dir = Files.createTempDirectory("idem-restart-");
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:file:" + dir.resolve("app") + ";LOCK_TIMEOUT=10000");
        Jdbi jdbi = Jdbi.create(ds);
        MutableClock clock = new MutableClock();
        Outbox outbox = Outbox.builder(ds).clock(clock).build().createTableIfNotExists();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists();
        jdbi.useHandle(h -> h.execute("CREATE TABLE ledger (seq BIGINT AUTO_INCREMENT PRIMARY KEY,"
                + " event_id VARCHAR(100) NOT NULL, k VARCHAR(10) NOT NULL)"));
        MeterRegistry registry = new SimpleMeterRegistry();
        RelayMetrics metrics = RelayMetrics.builder(registry, outbox).clock(clock).backlogRefresh(Duration.ZERO)
                .build();
        AtomicInteger booked = new AtomicInteger();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).engine(IdempotencyEngine.builder().store(store).build())
                .consumer("ledger").maxAttempts(100).transactionalHandler((m, c) -> store.inTransaction(c.key(),
                        c.fencingToken(), c.ttl(), c::encode, h -> {
                            if (booked.incrementAndGet() == 3) {
                                BROKER.stop();   // the broker dies in the middle of the poll
                            }
                            String body = new String((byte[]) m.payload(), StandardCharsets.UTF_8);
                            int n = Integer.parseInt(body.replaceAll("\\D", ""));
                            return h.createUpdate("INSERT INTO ledger (event_id, k) VALUES (:e, :k)")
                                    .bind("e", m.eventId()).bind("k", "k" + (n % KEYS)).execute();
                        }))
                .build();
        KafkaInboxHandler<Integer> handler = KafkaInboxHandler.builder(inbox).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).commitTimeout(Duration.ofSeconds(2)).build();
        String group = "ledger-" + UUID.randomUUID();
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);

        // 1. The relay publishes 12 events; a consumer books some, and the broker dies mid-poll.
        enqueue(jdbi, outbox, topic, 0, 12);
        KafkaProducer<byte[], byte[]> firstProducer = relayProducer();
        Relay first = relay(outbox, firstProducer, clock, metrics);
        for (int round = 0; round < 40 && outbox.backlog().pending() > 0; round++) {
            first.runOnce();
            clock.advance(Duration.ofSeconds(30)); // a send that failed (the new topic's leader) is due
        }
        assertThat(outbox.backlog().pending()).isZero();
        List<PollResult> beforeCrash = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer(group)) {
            consumer.assign(partitions);
            for (int poll = 0; poll < 50 && beforeCrash.stream().noneMatch(PollResult::failed); poll++) {
                beforeCrash.add(handler.pollOnce(consumer, Duration.ofMillis(200)));
            }
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
        assertThat(beforeCrash).as("the commit after the broker died failed").anyMatch(PollResult::failed);

        // 2. The broker stays down: the outbox fills, the relay backs off, and the meters show it.
        enqueue(jdbi, outbox, topic, 12, 24);
        clock.advance(Duration.ofSeconds(45));
        first.runOnce();
        clock.advance(Duration.ofSeconds(30));
        first.runOnce();
        firstProducer.close(Duration.ZERO);
        assertThat(registry.get(RelayMetrics.RETRIED).counter().count()).isPositive();
        assertThat(registry.get(RelayMetrics.RETRY_DELAY).timer().count()).isPositive();
        assertThat(registry.get(RelayMetrics.PENDING).gauge().value()).isEqualTo(12);
        assertThat(registry.get(RelayMetrics.OLDEST_PENDING_AGE).timeGauge().value(TimeUnit.SECONDS))
                .isGreaterThanOrEqualTo(75);

        // 3. Everything restarts: the database (closed on disk and reopened), the broker, a new
        //    relay with a new producer, a new consumer.
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");   // closes the database file; the next connection opens it again
        }
        BROKER.restart();
        try (KafkaProducer<byte[], byte[]> producer = relayProducer()) {
            Relay second = relay(outbox, producer, clock, metrics);
            for (int round = 0; round < 200 && outbox.backlog().pending() > 0; round++) {
                second.runOnce();
                clock.advance(Duration.ofSeconds(30)); // every backoff is due
            }
        }
        assertThat(registry.get(RelayMetrics.PENDING).gauge().value()).isZero();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer(group)) {
            consumer.assign(partitions);
            for (int poll = 0; poll < 150 && !(count(jdbi) == 24 && kafka.drained(group, partitions)); poll++) {
                handler.pollOnce(consumer, Duration.ofMillis(200));
            }
        }

        assertThat(kafka.drained(group, partitions)).isTrue();
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        Map<String, Integer> times = new LinkedHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT event_id, k FROM ledger ORDER BY seq")
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> {
                    byKey.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
                    times.merge(e.getKey(), 1, Integer::sum);
                }));
        assertThat(times).as("every event booked").hasSize(24);
        assertThat(times.values()).as("exactly once").allMatch(n -> n == 1);
        byKey.forEach((key, events) -> assertThat(events).as(key + " in enqueue order").isSorted());
    }

    private static int count(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger").mapTo(Integer.class).one());
    }
}
