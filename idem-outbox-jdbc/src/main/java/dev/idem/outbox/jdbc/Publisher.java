package dev.idem.outbox.jdbc;

/**
 * Delivers one outbox message to the broker. Returning means the broker has it (for Kafka:
 * the send was acknowledged); throwing an {@link Exception} means it may not, and the relay
 * tries again later with backoff. The relay holds the row lock while this runs, so bound its
 * time (broker client timeouts).
 *
 * <p>The relay may publish a message again after a crash between the publish and the mark,
 * so the consumer must deduplicate on {@link OutboxRecord#eventId()} (an idem inbox does).
 */
@FunctionalInterface
public interface Publisher {
    /**
     * Publishes the message.
     *
     * @param record the message, with its stable event id
     * @throws Exception if the broker did not confirm it
     */
    void publish(OutboxRecord record) throws Exception;
}
