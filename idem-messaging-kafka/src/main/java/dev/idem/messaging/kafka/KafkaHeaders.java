package dev.idem.messaging.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** The record headers the adapters write and read. */
public final class KafkaHeaders {
    /** The stable event id of an outbox message (UTF-8). */
    public static final String EVENT_ID = "idem-event-id";
    /** The producing service (UTF-8), the inbox's source; the topic when absent. */
    public static final String SOURCE = "idem-source";

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
