package dev.idem.messaging.kafka;

import dev.idem.messaging.PoisonMessageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Parks a poison record on a dead-letter topic ({@code <topic>.DLT} by default): same key,
 * value and headers, plus {@link KafkaHeaders#DLT_ID}, {@link KafkaHeaders#DLT_ORIGINAL_TOPIC},
 * {@link KafkaHeaders#DLT_ORIGINAL_PARTITION}, {@link KafkaHeaders#DLT_ORIGINAL_OFFSET},
 * {@link KafkaHeaders#DLT_REASON} and {@link KafkaHeaders#DLT_MESSAGE}. {@link #park} returns once
 * the broker acknowledged the send (configure the producer with {@code acks=all}); the timeout
 * bounds the whole step, the producer's own blocking included ({@link BoundedSend}). A record
 * parked again (its parking's answer was lost, or the acknowledgement after it failed) carries
 * the same {@link KafkaHeaders#DLT_ID}. The producer is the caller's; never closed here.
 */
final class DeadLetterTopic implements PoisonRecordHandler {
    private static final int MAX_MESSAGE = 1000;

    private final Producer<byte[], byte[]> producer;
    private final UnaryOperator<String> naming;
    private final Duration timeout;

    DeadLetterTopic(Producer<byte[], byte[]> producer, UnaryOperator<String> naming, Duration timeout) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.naming = Objects.requireNonNull(naming, "naming");
        this.timeout = timeout;
    }

    @Override
    public void park(ConsumerRecord<byte[], byte[]> record, PoisonMessageException reason) throws Exception {
        String topic = Objects.requireNonNull(naming.apply(record.topic()), "dead-letter topic name");
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(topic, null, record.key(), record.value());
        Headers headers = out.headers();
        for (Header h : record.headers()) {
            headers.add(h);
        }
        headers.add(KafkaHeaders.DLT_ID, utf8(id(record)));
        headers.add(KafkaHeaders.DLT_ORIGINAL_TOPIC, utf8(record.topic()));
        headers.add(KafkaHeaders.DLT_ORIGINAL_PARTITION, utf8(Integer.toString(record.partition())));
        headers.add(KafkaHeaders.DLT_ORIGINAL_OFFSET, utf8(Long.toString(record.offset())));
        headers.add(KafkaHeaders.DLT_REASON, utf8(reason.reason().name().toLowerCase(Locale.ROOT)));
        String message = String.valueOf(reason.getMessage());
        headers.add(KafkaHeaders.DLT_MESSAGE, utf8(message.length() <= MAX_MESSAGE ? message
                : message.substring(0, MAX_MESSAGE)));
        BoundedSend.send(producer, out, timeout);
    }

    /** The record's stable id: {@code <topic>-<partition>-<offset>}, the same on every copy parked. */
    static String id(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "-" + record.offset();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
