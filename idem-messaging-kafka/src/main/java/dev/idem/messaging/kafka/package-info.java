/**
 * Thin Kafka adapters for idem messaging: {@link dev.idem.messaging.kafka.KafkaInboxHandler}
 * runs a consumer group's records through an {@link dev.idem.messaging.Inbox}, parks poison
 * records on a dead-letter topic, and commits an offset only past records completed or parked;
 * {@link dev.idem.messaging.kafka.KafkaShareInboxHandler} does the same for a share group's
 * records, acknowledging each one after the inbox completed it; and
 * {@link dev.idem.messaging.kafka.KafkaPublisher} publishes outbox records with their event id in
 * a header.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.messaging.kafka;
