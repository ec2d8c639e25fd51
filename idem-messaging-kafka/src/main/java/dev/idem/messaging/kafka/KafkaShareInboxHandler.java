package dev.idem.messaging.kafka;

import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.messaging.Inbox;
import dev.idem.messaging.PoisonMessageException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Runs the records of a Kafka <em>share group</em> (KIP-932, Kafka 4.2+: many consumers per
 * partition, per-record acknowledgement, a delivery count) through an {@link Inbox}, and
 * acknowledges each record only after the inbox completed it, so each event is handled once per
 * event id however often, and to whichever member, the broker delivers it.
 *
 * <h2>One poll ({@link #handle})</h2>
 * Each record is decided alone, then acknowledged:
 * <ul>
 *   <li>the inbox completed it (handled now, a repeat of an event that ended, a final failure or
 *       a dead letter of the inbox, a mismatch): {@code ACCEPT};</li>
 *   <li>the handler failed transiently: {@code RELEASE}, so the broker delivers it again (to any
 *       member, its delivery count one higher);</li>
 *   <li>nothing could be done now: the event is in progress under another consumer's lease
 *       (typically the member whose acquisition lock lapsed while it still works), the store is
 *       unavailable, or parking failed: {@code RENEW}, so this consumer keeps it with the same
 *       delivery count and its next poll returns it (no delivery is spent waiting);</li>
 *   <li>poison ({@link PoisonMessageException}): parked by the {@link PoisonRecordHandler} (by
 *       default on {@code <topic>.DLT}), then {@code REJECT};</li>
 *   <li>a delivery count past {@code maxDeliveries}: not handed to the inbox again; if the event
 *       already ended (a consumer completed it but its acknowledgement was lost) {@code ACCEPT},
 *       otherwise parked with reason {@code deliveries_exhausted}, then {@code REJECT}.</li>
 * </ul>
 * Then one {@code commitSync} sends the poll's acknowledgements. A commit that fails, or whose
 * answer is lost, loses nothing: the records come back when their locks lapse and the inbox
 * acknowledges the repeats.
 *
 * <h2>What is promised</h2>
 * A record is accepted only after the inbox wrote its record, and rejected only after it was
 * parked, so no event is lost short of the broker's own limit: keep {@code maxDeliveries} below
 * the group's {@code share.delivery.count.limit} (5 by default), because the broker archives a
 * record that reaches its limit without a dead letter (its KIP-1191 dead-letter queue, if the
 * group has one, gets it then). Each event's effect runs once (transactional inbox), or as the
 * inbox promises for a plain handler. Share groups keep no order between records.
 *
 * <p>A record's source, event id and payload are read as {@link KafkaInboxHandler} reads them:
 * the source is the topic unless {@link Builder#trustSourceHeader()} says to trust the producer's
 * {@link KafkaHeaders#SOURCE} header.
 *
 * <p>Run the consumer with {@code share.acknowledgement.mode=explicit}, from its polling thread
 * (share consumers are single-threaded). With implicit acknowledgement the first
 * {@code acknowledge} throws {@link IllegalStateException}: close that consumer (which releases
 * its records) rather than poll it again, which would accept every record of the poll.
 * {@link WakeupException} and {@link InterruptException} propagate; so does an {@link Error},
 * leaving the poll's records acquired until their locks lapse or the consumer is closed.
 *
 * @param <R> the inbox's result type
 */
public final class KafkaShareInboxHandler<R> {
    private static final System.Logger LOG = System.getLogger(KafkaShareInboxHandler.class.getName());

    private final Inbox<R> inbox;
    private final PoisonRecordHandler poison;
    private final Duration commitTimeout;
    private final boolean trustSourceHeader;
    private final int maxDeliveries;

    private KafkaShareInboxHandler(Builder<R> b) {
        this.inbox = b.inbox;
        this.poison = b.poison;
        this.commitTimeout = b.commitTimeout;
        this.trustSourceHeader = b.trustSourceHeader;
        this.maxDeliveries = b.maxDeliveries;
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
     * @param consumer the share consumer, in explicit acknowledgement mode
     * @param timeout the poll timeout
     * @return what became of the records
     */
    public SharePollResult pollOnce(ShareConsumer<byte[], byte[]> consumer, Duration timeout) {
        return handle(consumer, consumer.poll(timeout));
    }

    /**
     * Decides and acknowledges each record of one poll of {@code consumer}, then commits the
     * acknowledgements (see the class Javadoc).
     *
     * @param consumer the share consumer that polled them, in explicit acknowledgement mode
     * @param records the poll's records
     * @return what became of the records
     * @throws IllegalStateException if the consumer does not acknowledge explicitly
     */
    public SharePollResult handle(ShareConsumer<byte[], byte[]> consumer, ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return SharePollResult.EMPTY;
        }
        Map<TopicPartition, Map<AcknowledgeType, Integer>> given = new HashMap<>();
        RuntimeException failure = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            AcknowledgeType type;
            try {
                type = decide(record);
            } catch (Hold e) {
                failure = first(failure, e.reason);
                type = AcknowledgeType.RENEW;
            } catch (RuntimeException e) {
                failure = first(failure, e);
                type = AcknowledgeType.RELEASE;
            }
            acknowledge(consumer, record, type);
            given.computeIfAbsent(new TopicPartition(record.topic(), record.partition()),
                    p -> new EnumMap<>(AcknowledgeType.class)).merge(type, 1, Integer::sum);
        }
        Map<TopicIdPartition, Optional<KafkaException>> results;
        try {
            results = consumer.commitSync(commitTimeout);
        } catch (WakeupException | InterruptException e) {
            throw e;
        } catch (RuntimeException e) {
            // Unknown whether any landed: the records come back when their locks lapse.
            failure = first(failure, e);
            results = Map.of();
        }
        Map<AcknowledgeType, Integer> confirmed = new EnumMap<>(AcknowledgeType.class);
        int unconfirmed = 0;
        Map<TopicPartition, Optional<KafkaException>> byPartition = new HashMap<>();
        results.forEach((p, r) -> byPartition.put(p.topicPartition(), r));
        for (Map.Entry<TopicPartition, Map<AcknowledgeType, Integer>> e : given.entrySet()) {
            Optional<KafkaException> result = byPartition.get(e.getKey());
            if (result != null && result.isEmpty()) {
                e.getValue().forEach((type, n) -> confirmed.merge(type, n, Integer::sum));
                continue;
            }
            unconfirmed += e.getValue().values().stream().mapToInt(Integer::intValue).sum();
            if (result != null) {
                failure = first(failure, result.get());
            }
        }
        if (failure != null) {
            LOG.log(Level.DEBUG, "kafka share inbox: {0} of {1} acknowledgements unconfirmed: {2}", unconfirmed,
                    records.count(), failure);
        }
        return new SharePollResult(confirmed.getOrDefault(AcknowledgeType.ACCEPT, 0),
                confirmed.getOrDefault(AcknowledgeType.RELEASE, 0), confirmed.getOrDefault(AcknowledgeType.RENEW, 0),
                confirmed.getOrDefault(AcknowledgeType.REJECT, 0), unconfirmed, failure);
    }

    /** What to acknowledge {@code record} with; throws {@link Hold} to keep it, anything else to release it. */
    private AcknowledgeType decide(ConsumerRecord<byte[], byte[]> record) {
        String source = KafkaRecords.source(record, trustSourceHeader);
        String eventId = KafkaRecords.eventId(record);
        int deliveries = record.deliveryCount().map(Short::intValue).orElse(1);
        try {
            if (deliveries > maxDeliveries) {
                if (inbox.ended(source, eventId)) {
                    return AcknowledgeType.ACCEPT; // handled; an earlier acknowledgement was lost
                }
                park(record, new PoisonMessageException(PoisonMessageException.Reason.DELIVERIES_EXHAUSTED,
                        "delivered " + deliveries + " times, more than the limit of " + maxDeliveries
                                + ", without being handled", null));
                return AcknowledgeType.REJECT;
            }
            inbox.handle(source, eventId, KafkaRecords.payload(record));
            return AcknowledgeType.ACCEPT;
        } catch (PoisonMessageException e) {
            park(record, e);
            return AcknowledgeType.REJECT;
        } catch (RequestInProgressException | StoreUnavailableException e) {
            throw new Hold(e); // nothing ran here: wait on this consumer rather than spend a delivery
        }
    }

    private void park(ConsumerRecord<byte[], byte[]> record, PoisonMessageException reason) {
        try {
            KafkaRecords.park(poison, record, reason);
        } catch (RuntimeException e) {
            throw new Hold(e);
        }
        LOG.log(Level.WARNING, "kafka share inbox: parked record {0}-{1}@{2} (delivery {3}): {4}", record.topic(),
                record.partition(), record.offset(), record.deliveryCount().orElse((short) 1), reason.getMessage());
    }

    private static void acknowledge(ShareConsumer<byte[], byte[]> consumer, ConsumerRecord<byte[], byte[]> record,
            AcknowledgeType type) {
        try {
            consumer.acknowledge(record, type);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("could not acknowledge " + DeadLetterTopic.id(record) + " as " + type
                    + "; run the share consumer with share.acknowledgement.mode=explicit, and close this one (which"
                    + " releases its records) rather than poll it again", e);
        }
    }

    private static RuntimeException first(RuntimeException failure, RuntimeException e) {
        if (failure == null) {
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }

    /** A record to keep (renew) rather than release, and why. */
    private static final class Hold extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final RuntimeException reason;

        Hold(RuntimeException reason) {
            super(null, null, false, false);
            this.reason = reason;
        }
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
        private int maxDeliveries = 4;

        private Builder(Inbox<R> inbox) {
            this.inbox = inbox;
        }

        @Override
        Builder<R> self() {
            return this;
        }

        /**
         * The most deliveries a record gets before it is parked instead (default 4): a record
         * delivered more often is parked as poison (reason {@code deliveries_exhausted}) and
         * rejected, unless its event already ended. Keep it below the group's
         * {@code share.delivery.count.limit} (default 5): the broker archives a record at its limit
         * without a dead letter.
         *
         * @param maxDeliveries 1..1000
         * @return this builder
         */
        public Builder<R> maxDeliveries(int maxDeliveries) {
            once("maxDeliveries");
            if (maxDeliveries < 1 || maxDeliveries > 1000) {
                throw new IllegalArgumentException("maxDeliveries must be within 1..1000 but was " + maxDeliveries);
            }
            this.maxDeliveries = maxDeliveries;
            return this;
        }

        /**
         * Builds the handler.
         *
         * @return the handler
         * @throws IllegalStateException if neither a dead-letter topic nor a poison handler was given
         */
        public KafkaShareInboxHandler<R> build() {
            poison = poison();
            return new KafkaShareInboxHandler<>(this);
        }
    }
}
