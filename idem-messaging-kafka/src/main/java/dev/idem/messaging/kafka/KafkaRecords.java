package dev.idem.messaging.kafka;

import dev.idem.api.CallerScope;
import dev.idem.messaging.PoisonMessageException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** How both inbox handlers read a record and park one. */
final class KafkaRecords {
    private KafkaRecords() {
    }

    /**
     * The inbox's source: the topic (which the broker's ACLs guard), in {@link CallerScope}'s
     * encoding (a topic name holds no ':', so one of 200 characters or fewer is itself); with
     * {@code trustSourceHeader}, the {@link KafkaHeaders#SOURCE} header the producer wrote, or the topic.
     */
    static String source(ConsumerRecord<byte[], byte[]> record, boolean trustSourceHeader) {
        String s = trustSourceHeader ? KafkaHeaders.text(record.headers(), KafkaHeaders.SOURCE) : null;
        return s != null ? s : CallerScope.of(record.topic());
    }

    /** The inbox's event id: the {@link KafkaHeaders#EVENT_ID} header, or {@code topic-partition-offset}. */
    static String eventId(ConsumerRecord<byte[], byte[]> record) {
        String id = KafkaHeaders.text(record.headers(), KafkaHeaders.EVENT_ID);
        return id != null ? id : DeadLetterTopic.id(record);
    }

    /** The inbox's payload: the value, empty for a null value. */
    static byte[] payload(ConsumerRecord<byte[], byte[]> record) {
        return record.value() == null ? new byte[0] : record.value();
    }

    /** Parks {@code record}; a failure to is thrown unchecked, with {@code reason} suppressed in it. */
    static void park(PoisonRecordHandler poison, ConsumerRecord<byte[], byte[]> record, PoisonMessageException reason) {
        try {
            poison.park(record, reason);
        } catch (RuntimeException parkFailure) {
            parkFailure.addSuppressed(reason);
            throw parkFailure;
        } catch (Exception parkFailure) {
            IllegalStateException wrapped = new IllegalStateException("could not park poison record "
                    + DeadLetterTopic.id(record), parkFailure);
            wrapped.addSuppressed(reason);
            throw wrapped;
        }
    }
}
