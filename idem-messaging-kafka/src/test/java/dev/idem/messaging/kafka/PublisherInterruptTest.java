package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.OutboxRecord;
import dev.idem.outbox.jdbc.Relay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shutdown while {@link KafkaPublisher} waits for the broker's acknowledgement (a producer that
 * lingers a minute before it sends, so the wait is certain): the publish ends with
 * {@link InterruptedException} and the thread's interrupt flag still set, and a relay on H2
 * publishing through it ends its run with the batch rolled back (no row dead-lettered with
 * {@code maxAttempts(1)}). Each interrupt is sent once the thread is seen waiting on the
 * acknowledgement, not on the producer's metadata.
 */
@Timeout(120)
class PublisherInterruptTest {
    private static final Kafka KAFKA = Kafka.shared();
    private static final String EMBEDDED_BOOTSTRAP = dev.idem.testsupport.kafka.EmbeddedKafka.bootstrap();

    private static KafkaProducer<byte[], byte[]> lingeringProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EMBEDDED_BOOTSTRAP);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** Waits until {@code thread} waits for a record's acknowledgement. */
    private static void awaitAcknowledgementWait(Thread thread) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().endsWith("FutureRecordMetadata"))) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the publish never waited for its acknowledgement");
    }

    @Test
    void anInterruptWhileWaitingForTheAcknowledgementKeepsTheFlag() throws Exception {
        String topic = KAFKA.topic("interrupted.publish", 1);
        try (KafkaProducer<byte[], byte[]> producer = lingeringProducer()) {
            producer.partitionsFor(topic);   // metadata first, so the send itself does not block
            KafkaPublisher publisher = new KafkaPublisher(producer, "payments", Duration.ofSeconds(90));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean flag = new AtomicBoolean();
            Thread worker = new Thread(() -> {
                try {
                    publisher.publish(new OutboxRecord(1, "e-1", topic, null,
                            "{}".getBytes(StandardCharsets.UTF_8), 1, Instant.now()));
                } catch (Throwable e) {
                    thrown.set(e);
                }
                flag.set(Thread.currentThread().isInterrupted());
            }, "publisher");
            worker.start();
            awaitAcknowledgementWait(worker);
            worker.interrupt();
            worker.join(TimeUnit.SECONDS.toMillis(30));

            assertThat(worker.isAlive()).isFalse();
            assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
            assertThat(flag.get()).as("the interrupt flag survives the publish").isTrue();
            producer.close(Duration.ZERO);
        }
    }

    @Test
    void aRelayInterruptedWhileKafkaAcknowledgesEndsWithTheBatchRolledBack() throws Exception {
        String topic = KAFKA.topic("interrupted.relay", 1);
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:kafka-relay-interrupt;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        Outbox outbox = Outbox.builder(ds).build().createTableIfNotExists();
        Jdbi jdbi = Jdbi.create(ds);
        jdbi.useTransaction(h -> {
            for (int i = 0; i < 3; i++) {
                outbox.enqueue(h, new OutboxMessage("charge-" + i, topic, null, "{}".getBytes(StandardCharsets.UTF_8)));
            }
        });
        try (KafkaProducer<byte[], byte[]> producer = lingeringProducer()) {
            producer.partitionsFor(topic);
            List<String> dead = new CopyOnWriteArrayList<>();
            Relay relay = outbox.relay(new KafkaPublisher(producer, "payments", Duration.ofSeconds(90)))
                    .maxAttempts(1).onDeadLetter(r -> dead.add(r.eventId())).build();
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread worker = new Thread(() -> {
                try {
                    relay.run(() -> true);
                } catch (Throwable e) {
                    ended.set(e);
                }
            }, "relay");
            worker.start();
            awaitAcknowledgementWait(worker);
            worker.interrupt();
            worker.join(TimeUnit.SECONDS.toMillis(30));

            assertThat(worker.isAlive()).as("the run ended").isFalse();
            assertThat(ended.get()).isInstanceOf(InterruptedException.class);
            int pending = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + outbox.tableName()
                    + " WHERE state = 'P' AND attempts = 0").mapTo(Integer.class).one());
            assertThat(pending).as("every row pending, no attempt counted").isEqualTo(3);
            assertThat(dead).isEmpty();
            producer.close(Duration.ZERO);
        }
    }
}
