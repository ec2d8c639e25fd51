package dev.idem.messaging;

/**
 * An event the inbox gave up on.
 *
 * @param source the message's source
 * @param consumer the inbox's consumer name
 * @param eventId the event id
 * @param payload the delivered payload; null if null was given
 * @param attempt the attempt that gave up
 * @param reason why
 * @param cause the handler's last failure; null when the attempts had run out before the
 *     handler was called (earlier attempts crashed)
 */
public record DeadLetter(String source, String consumer, String eventId, Object payload, int attempt, Reason reason,
        Exception cause) {

    /** Why an event was dead-lettered. */
    public enum Reason {
        /** The failure classifier called the handler's failure final. */
        FINAL_FAILURE,
        /** The configured number of attempts failed or crashed. */
        ATTEMPTS_EXHAUSTED
    }

    /** Receives dead letters (to publish them to a dead-letter topic, alert, park). */
    @FunctionalInterface
    public interface Callback {
        /**
         * Called once per dead event, inside the execution that records it: before the record
         * is stored, so a dead letter is never lost, and called again only if the consumer
         * crashes (or the store fails) between this call and the record. An exception it
         * throws is a transient failure: the delivery is redelivered and the call repeated.
         *
         * @param deadLetter the event
         * @throws Exception to have the delivery redelivered
         */
        void onDeadLetter(DeadLetter deadLetter) throws Exception;
    }
}
