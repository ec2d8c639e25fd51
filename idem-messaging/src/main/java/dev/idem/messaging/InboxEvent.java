package dev.idem.messaging;

/**
 * One thing an inbox did, for metrics and logs. Carries names and ids, never the payload.
 *
 * @param type what happened
 * @param source the message's source
 * @param consumer the inbox's consumer name
 * @param eventId the message's event id
 * @param attempt the attempt involved (0 when nothing was claimed)
 */
public record InboxEvent(Type type, String source, String consumer, String eventId, int attempt) {

    /** Event types. */
    public enum Type {
        /** The handler ran and succeeded. */
        HANDLED,
        /** A redelivery of an event that had already ended was acknowledged without running anything. */
        DUPLICATE,
        /** The event id came with another payload; the mismatch callback was called. */
        MISMATCH,
        /** The handler failed transiently; the failure is rethrown so the broker redelivers. */
        TRANSIENT_FAILURE,
        /** The handler failed finally; the failure was recorded. */
        FINAL_FAILURE,
        /** The event went to the dead-letter callback. */
        DEAD_LETTERED
    }
}
