package dev.idem.outbox.jdbc;

import java.time.Instant;
import java.util.Objects;

/**
 * A stored outbox message as the relay hands it to the {@link Publisher}.
 *
 * @param id the row id (increasing in insertion order)
 * @param eventId the stable event id: the same on every publish of this row, so the
 *     consumer's inbox can drop a repeated publish
 * @param topic the destination
 * @param key the aggregate key, or null
 * @param payload the body
 * @param attempt this publish attempt, 1 the first time
 * @param createdAt when the message was enqueued (application clock)
 */
public record OutboxRecord(long id, String eventId, String topic, String key, byte[] payload, int attempt,
        Instant createdAt) {

    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxRecord r && id == r.id && attempt == r.attempt && eventId.equals(r.eventId)
                && topic.equals(r.topic) && Objects.equals(key, r.key) && java.util.Arrays.equals(payload, r.payload)
                && createdAt.equals(r.createdAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, eventId, attempt);
    }

    @Override
    public String toString() {
        return "OutboxRecord[" + id + ", " + eventId + ", " + topic + ", " + key + ", attempt " + attempt + "]";
    }
}
