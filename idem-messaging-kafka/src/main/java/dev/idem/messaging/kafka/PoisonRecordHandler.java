package dev.idem.messaging.kafka;

import dev.idem.messaging.PoisonMessageException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Parks a record the inbox can never handle (see {@link PoisonMessageException}), so that
 * {@link KafkaInboxHandler} can commit past it instead of blocking its partition. The default,
 * {@link KafkaInboxHandler.Builder#deadLetterTopic}, sends it to a dead-letter topic.
 */
@FunctionalInterface
public interface PoisonRecordHandler {
    /**
     * Parks the record durably before returning: once this returns, the record's offset is
     * committed and the record is never delivered to this consumer group again. Throwing
     * anything leaves the offset uncommitted: the record (and the rest of its partition) comes
     * back on a later poll and this is called again.
     *
     * @param record the record as consumed
     * @param reason why the inbox refused it
     * @throws Exception if the record could not be parked
     */
    void park(ConsumerRecord<byte[], byte[]> record, PoisonMessageException reason) throws Exception;
}
