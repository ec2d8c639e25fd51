package dev.idem.messaging.kafka;

import dev.idem.messaging.Inbox;
import dev.idem.messaging.PoisonMessageException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Runs a poll's Kafka records through an {@link Inbox} and commits offsets only past records
 * the inbox completed or that were parked, so nothing is skipped and the inbox turns every
 * redelivery into an acknowledgement that runs nothing.
 *
 * <h2>One poll ({@link #handle})</h2>
 * Records are handled partition by partition in offset order. A record whose inbox call throws
 * (a transient handler failure, the event in progress elsewhere, the store down) stops its
 * partition; the other partitions go on. A poison record ({@link PoisonMessageException}: an
 * invalid {@link KafkaHeaders#EVENT_ID} or source, a value over the engine's
 * {@code maxRequestBytes}) is parked by the {@link PoisonRecordHandler} (by default on the
 * {@code <topic>.DLT} dead-letter topic) and counts as done; if parking fails it stops its
 * partition like a failure. Then one {@code commitSync} commits every partition's progress.
 * After any failure (inbox, parking, or the commit itself, for example a
 * {@code TimeoutException} or {@code RebalanceInProgressException}) every partition of the poll
 * that is still assigned is sought back to its first record whose offset was not committed, so
 * the next poll delivers it again and no later commit can pass over it. A partition revoked in
 * the meantime (the new group protocol's client may revoke one in the background, between
 * {@code assignment()} and the {@code seek}) is skipped, and the others are still sought: its
 * next owner starts from its committed offset.
 *
 * <h2>What is promised</h2>
 * A record is never committed before the inbox completed it or it was parked, so no record is
 * lost. A record may be delivered again (after a failure, a crash, a commit that failed or a
 * rebalance); the inbox acknowledges the repeat without running the handler (exactly once in
 * transactional mode; see {@link Inbox} for a plain handler).
 *
 * <p>The inbox's source is the record's topic (its {@link KafkaHeaders#SOURCE} header only with
 * {@link Builder#trustSourceHeader()}); the event id is the {@link KafkaHeaders#EVENT_ID} header,
 * or {@code topic-partition-offset} for records not written by an idem outbox (which
 * deduplicates redeliveries but not a producer's own retries). A producer chooses the event ids
 * of its records, within its topic's source: whoever may write to a topic can claim any event id
 * of that topic, never of another. The payload is the record value as bytes (empty for a null value).
 *
 * <p>Use it from the consumer's polling thread (Kafka consumers are single-threaded); run the
 * consumer with {@code enable.auto.commit=false}. {@link WakeupException} and
 * {@link InterruptException} propagate after the seek; an {@link Error} propagates at once.
 *
 * @param <R> the inbox's result type
 */
public final class KafkaInboxHandler<R> {
    private static final System.Logger LOG = System.getLogger(KafkaInboxHandler.class.getName());

    private final Inbox<R> inbox;
    private final PoisonRecordHandler poison;
    private final Duration commitTimeout;
    private final boolean trustSourceHeader;

    private KafkaInboxHandler(Builder<R> b) {
        this.inbox = b.inbox;
        this.poison = b.poison;
        this.commitTimeout = b.commitTimeout;
        this.trustSourceHeader = b.trustSourceHeader;
    }

    /**
     * A builder for a handler over {@code inbox}; it needs a place for poison records
     * ({@link Builder#deadLetterTopic} or {@link Builder#onPoison}).
     *
     * @param <R> the inbox's result type
     * @param inbox the inbox
     * @return the builder
     */
    public static <R> Builder<R> builder(Inbox<R> inbox) {
        return new Builder<>(Objects.requireNonNull(inbox, "inbox"));
    }

    /**
     * Polls once and {@linkplain #handle handles} the records.
     *
     * @param consumer the consumer
     * @param timeout the poll timeout
     * @return what became of the records
     */
    public PollResult pollOnce(Consumer<byte[], byte[]> consumer, Duration timeout) {
        return handle(consumer, consumer.poll(timeout));
    }

    /**
     * Handles the records of one poll of {@code consumer}, commits what was done, and seeks back
     * where something was not (see the class Javadoc).
     *
     * @param consumer the consumer that polled them
     * @param records the poll's records
     * @return what became of the records
     */
    public PollResult handle(Consumer<byte[], byte[]> consumer, ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return PollResult.EMPTY;
        }
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        RuntimeException failure = null;
        int parked = 0;
        int committed = 0;
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
                try {
                    if (handleOne(record)) {
                        parked++;
                    }
                } catch (RuntimeException e) {
                    failure = first(failure, e);
                    break;
                }
                done.put(partition, new OffsetAndMetadata(record.offset() + 1));
                committed++;
            }
        }
        if (!done.isEmpty()) {
            try {
                consumer.commitSync(done, commitTimeout);
            } catch (RuntimeException e) {
                // The commit may or may not have landed: treat nothing as committed, so every
                // handled record comes back and the inbox acknowledges it.
                failure = first(failure, e);
                done.clear();
                committed = 0;
                parked = 0;
            }
        }
        if (failure != null) {
            seekBack(consumer, records, done, failure);
            LOG.log(Level.DEBUG, "kafka inbox: {0} of {1} records committed; the rest is redelivered: {2}",
                    committed, records.count(), failure);
            if (failure instanceof WakeupException || failure instanceof InterruptException) {
                throw failure;
            }
        }
        return new PollResult(committed, parked, records.count() - committed, failure);
    }

    /** Handles one record; true if it was poison and parked. */
    private boolean handleOne(ConsumerRecord<byte[], byte[]> record) {
        try {
            inbox.handle(KafkaRecords.source(record, trustSourceHeader), KafkaRecords.eventId(record), KafkaRecords.payload(record));
            return false;
        } catch (PoisonMessageException e) {
            KafkaRecords.park(poison, record, e);
            LOG.log(Level.WARNING, "kafka inbox: parked poison record {0}-{1}@{2}: {3}", record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return true;
        }
    }

    /**
     * Seeks each still-assigned partition of the poll back to its first uncommitted record. With
     * the new group protocol ({@code group.protocol=consumer}) the client may revoke a partition in
     * the background, between {@code assignment()} and a {@code seek}, which then throws
     * {@link IllegalStateException}: that partition's next owner starts from its committed offset,
     * so it is skipped, and the others are still sought. A seek that fails for a partition still
     * assigned is added to the poll's failure.
     */
    private static void seekBack(Consumer<byte[], byte[]> consumer, ConsumerRecords<byte[], byte[]> records,
            Map<TopicPartition, OffsetAndMetadata> committed, RuntimeException failure) {
        Set<TopicPartition> assigned = new HashSet<>(consumer.assignment());
        for (TopicPartition partition : records.partitions()) {
            if (!assigned.contains(partition)) {
                continue; // revoked: its next owner starts from the committed offset
            }
            OffsetAndMetadata at = committed.get(partition);
            List<ConsumerRecord<byte[], byte[]>> polled = records.records(partition);
            try {
                consumer.seek(partition, at != null ? at.offset() : polled.get(0).offset());
            } catch (IllegalStateException e) {
                if (consumer.assignment().contains(partition)) {
                    failure.addSuppressed(e);
                }
                // else revoked in the background since assignment() was read: as above
            }
        }
    }

    private static RuntimeException first(RuntimeException failure, RuntimeException e) {
        if (failure == null) {
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }

    /**
     * Validating builder: each setter checks its argument at once and may be called once;
     * exactly one of {@link #deadLetterTopic} and {@link #onPoison} is required.
     *
     * @param <R> the inbox's result type
     */
    public static final class Builder<R> extends HandlerBuilder<Builder<R>> {
        private final Inbox<R> inbox;
        private PoisonRecordHandler poison;

        private Builder(Inbox<R> inbox) {
            this.inbox = inbox;
        }

        @Override
        Builder<R> self() {
            return this;
        }

        /**
         * Builds the handler.
         *
         * @return the handler
         * @throws IllegalStateException if neither a dead-letter topic nor a poison handler was given
         */
        public KafkaInboxHandler<R> build() {
            poison = poison();
            return new KafkaInboxHandler<>(this);
        }
    }
}
