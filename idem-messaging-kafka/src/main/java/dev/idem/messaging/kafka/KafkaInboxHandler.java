package dev.idem.messaging.kafka;

import dev.idem.messaging.Delivery;
import dev.idem.messaging.Inbox;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs Kafka records through an {@link Inbox} and commits each record's offset only after the
 * inbox completed it, so a consumer that dies before the commit gets the record again and the
 * inbox acknowledges the repeat without running the handler.
 *
 * <p>The inbox's source is the {@link KafkaHeaders#SOURCE} header, or the topic; the event id
 * is the {@link KafkaHeaders#EVENT_ID} header, or {@code topic-partition-offset} for records
 * not written by an idem outbox (which deduplicates redeliveries but not a producer's own
 * retries). The payload is the record value as bytes.
 *
 * <p>Use it from the consumer's polling thread (Kafka consumers are single-threaded); run the
 * consumer with {@code enable.auto.commit=false}.
 *
 * @param <R> the inbox's result type
 */
public final class KafkaInboxHandler<R> {
    private final Inbox<R> inbox;

    /**
     * A handler over {@code inbox}.
     *
     * @param inbox the inbox
     */
    public KafkaInboxHandler(Inbox<R> inbox) {
        this.inbox = Objects.requireNonNull(inbox, "inbox");
    }

    /**
     * Handles one record; when the inbox returns, commits {@code offset + 1} of its partition
     * synchronously. When the inbox throws (a transient failure, an event in progress
     * elsewhere, the store down), seeks the partition back to this record, so the next poll
     * delivers it again, and rethrows.
     *
     * @param consumer the consumer the record came from
     * @param record the record
     * @return what became of the event
     */
    public Delivery<R> handle(Consumer<byte[], byte[]> consumer, ConsumerRecord<byte[], byte[]> record) {
        TopicPartition partition = new TopicPartition(record.topic(), record.partition());
        Delivery<R> delivery;
        try {
            delivery = inbox.handle(source(record), eventId(record), record.value() == null ? new byte[0]
                    : record.value());
        } catch (RuntimeException e) {
            consumer.seek(partition, record.offset());
            throw e;
        }
        consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
        return delivery;
    }

    /**
     * Polls once and handles the records in order, partition by partition; a partition stops at
     * its first failing record (which the next poll delivers again), the others go on.
     *
     * @param consumer the consumer
     * @param timeout the poll timeout
     * @return how many records were handled and committed
     */
    public int pollOnce(Consumer<byte[], byte[]> consumer, Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        int done = 0;
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
                try {
                    handle(consumer, record);
                    done++;
                } catch (RuntimeException e) {
                    break;
                }
            }
        }
        return done;
    }

    private static String source(ConsumerRecord<byte[], byte[]> record) {
        String s = KafkaHeaders.text(record.headers(), KafkaHeaders.SOURCE);
        return s != null ? s : record.topic();
    }

    private static String eventId(ConsumerRecord<byte[], byte[]> record) {
        String id = KafkaHeaders.text(record.headers(), KafkaHeaders.EVENT_ID);
        return id != null ? id : record.topic() + "-" + record.partition() + "-" + record.offset();
    }
}
