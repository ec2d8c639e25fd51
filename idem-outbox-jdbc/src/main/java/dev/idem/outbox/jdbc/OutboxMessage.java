package dev.idem.outbox.jdbc;

import dev.idem.api.IdempotencyKey;
import java.util.Objects;

/**
 * A message to enqueue: where it goes, its optional aggregate key, its payload and the stable
 * event id the consumer's inbox deduplicates on.
 *
 * @param eventId the event id: 1..255 visible ASCII characters (it becomes the inbox's key);
 *     null to let the outbox generate one
 * @param topic the destination (topic, queue, exchange): 1..255 characters
 * @param key the aggregate key (partition key; the unit of ordering); null for none;
 *     at most 255 characters
 * @param payload the body, stored as it is
 */
public record OutboxMessage(String eventId, String topic, String key, byte[] payload) {

    /**
     * Validates the fields.
     *
     * @param eventId the event id, or null to have one generated
     * @param topic the destination
     * @param key the aggregate key, or null
     * @param payload the body
     * @throws IllegalArgumentException if a field is out of range
     * @throws NullPointerException if topic or payload is null
     */
    public OutboxMessage {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        if (topic.isEmpty() || topic.length() > 255) {
            throw new IllegalArgumentException("topic must be 1..255 characters but was " + topic.length());
        }
        if (key != null && (key.isEmpty() || key.length() > 255)) {
            throw new IllegalArgumentException("key must be 1..255 characters (or null) but was " + key.length());
        }
        if (eventId != null) {
            try {
                IdempotencyKey.of("outbox", "outbox", eventId);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("eventId is not usable as an idempotency key: " + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * A message whose event id the outbox generates.
     *
     * @param topic the destination
     * @param key the aggregate key, or null
     * @param payload the body
     * @return the message
     */
    public static OutboxMessage of(String topic, String key, byte[] payload) {
        return new OutboxMessage(null, topic, key, payload);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxMessage m && Objects.equals(eventId, m.eventId) && topic.equals(m.topic)
                && Objects.equals(key, m.key) && java.util.Arrays.equals(payload, m.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(eventId, topic, key, java.util.Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "OutboxMessage[" + eventId + ", " + topic + ", " + key + ", " + payload.length + " bytes]";
    }
}
