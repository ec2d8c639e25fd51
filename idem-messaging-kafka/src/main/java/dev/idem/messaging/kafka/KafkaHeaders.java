package dev.idem.messaging.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** The record headers the adapters write and read. */
public final class KafkaHeaders {
    /** The stable event id of an outbox message (UTF-8). */
    public static final String EVENT_ID = "idem-event-id";
    /**
     * The producing service (UTF-8), as a producer names itself. The inbox handlers scope events by
     * the topic, and read this header as the source only when told to trust it
     * ({@code trustSourceHeader()} on their builders).
     */
    public static final String SOURCE = "idem-source";
    /**
     * On a dead-letter record: the parked record's stable id, {@code <topic>-<partition>-<offset>}
     * of the original (UTF-8). A record parked twice (its parking's answer was lost, or the offset
     * commit or acknowledgement after it failed) carries the same id: a dead-letter consumer
     * deduplicates by it (for example as the event id of an idem inbox).
     */
    public static final String DLT_ID = "idem-dlt-id";
    /** On a dead-letter record: the topic the poison record was consumed from (UTF-8). */
    public static final String DLT_ORIGINAL_TOPIC = "idem-dlt-original-topic";
    /** On a dead-letter record: its original partition (decimal text). */
    public static final String DLT_ORIGINAL_PARTITION = "idem-dlt-original-partition";
    /** On a dead-letter record: its original offset (decimal text). */
    public static final String DLT_ORIGINAL_OFFSET = "idem-dlt-original-offset";
    /**
     * On a dead-letter record: why it was parked, {@code invalid_key} or {@code invalid_payload}
     * (the inbox refused it), or {@code deliveries_exhausted} (a share group delivered it more
     * often than the handler's limit).
     */
    public static final String DLT_REASON = "idem-dlt-reason";
    /** On a dead-letter record: the inbox's message about it (UTF-8, at most 1000 characters). */
    public static final String DLT_MESSAGE = "idem-dlt-message";

    private KafkaHeaders() {
    }

    /**
     * The last value of header {@code name} as UTF-8 text.
     *
     * @param headers the record's headers
     * @param name the header name
     * @return the value, or null if the header is absent or has no value
     */
    public static String text(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
