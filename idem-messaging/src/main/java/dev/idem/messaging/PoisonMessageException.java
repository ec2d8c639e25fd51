package dev.idem.messaging;

import dev.idem.api.IdempotencyException;
import java.util.Objects;

/**
 * The delivery itself can never be handled, however often it comes back: its source or event
 * id is not a valid key part, or the engine refused its payload (larger than the engine's
 * {@code maxRequestBytes}, malformed JSON text, an object that cannot be written as JSON).
 * Nothing ran and nothing was stored. Park the message (a dead-letter topic, a table) and
 * acknowledge it; redelivering it would block everything queued behind it.
 *
 * <p>Thrown only for the delivery's own data: the same exception types thrown by a handler are
 * handler failures, classified and retried like any other. Broker adapters also build one with
 * {@link Reason#DELIVERIES_EXHAUSTED} to park a message delivered too often.
 */
public class PoisonMessageException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the delivery. */
    public enum Reason {
        /** The source or event id is empty, too long, or holds characters a key part may not. */
        INVALID_KEY,
        /** The engine refused the payload before anything ran (size limit, malformed JSON). */
        INVALID_PAYLOAD,
        /**
         * Never thrown by the inbox: a broker adapter's verdict on a message its broker delivered
         * more often than the adapter's limit without it being handled (a Kafka share group's
         * delivery count), parked like poison rather than delivered again.
         */
        DELIVERIES_EXHAUSTED
    }

    /** What is wrong with the delivery. */
    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason what is wrong
     * @param message which delivery and why
     * @param cause the engine's or the key's exception
     */
    public PoisonMessageException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /**
     * What is wrong with the delivery.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /** The status of the cause: 400, or 413 for a payload over the size limit. */
    @Override
    public int httpStatus() {
        return getCause() instanceof IdempotencyException ? ((IdempotencyException) getCause()).httpStatus() : 400;
    }
}
