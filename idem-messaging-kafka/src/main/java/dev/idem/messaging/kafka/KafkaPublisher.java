package dev.idem.messaging.kafka;

import dev.idem.outbox.jdbc.OutboxRecord;
import dev.idem.outbox.jdbc.Publisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * An outbox {@link Publisher} over a Kafka {@link Producer}: the outbox topic is the Kafka
 * topic, the aggregate key is the record key (UTF-8; so one key stays on one partition, in
 * order), the payload is the value, and headers carry the event id ({@link KafkaHeaders#EVENT_ID})
 * and the source ({@link KafkaHeaders#SOURCE}). {@link #publish} returns once the broker
 * acknowledged the send (configure the producer with {@code acks=all} for durability) and
 * throws if it did not within the timeout, which bounds the whole send: the producer's own
 * blocking for metadata or buffer memory ({@code max.block.ms}) included. The producer is the
 * caller's; it is never closed here.
 */
public final class KafkaPublisher implements Publisher {
    private final Producer<byte[], byte[]> producer;
    private final String source;
    private final Duration timeout;

    /**
     * A publisher for messages of service {@code source}.
     *
     * @param producer the producer (byte-array keys and values)
     * @param source the producing service's name, written to every record
     * @param timeout how long to wait for the broker's acknowledgement; bounds the relay's row locks
     */
    public KafkaPublisher(Producer<byte[], byte[]> producer, String source, Duration timeout) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.source = Objects.requireNonNull(source, "source");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive but was " + timeout);
        }
    }

    @Override
    public void publish(OutboxRecord record) throws Exception {
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(record.topic(), key, record.payload());
        out.headers().add(KafkaHeaders.EVENT_ID, record.eventId().getBytes(StandardCharsets.UTF_8));
        out.headers().add(KafkaHeaders.SOURCE, source.getBytes(StandardCharsets.UTF_8));
        BoundedSend.send(producer, out, timeout);
    }
}
