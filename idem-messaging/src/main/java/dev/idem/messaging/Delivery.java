package dev.idem.messaging;

/**
 * What became of one delivery that the broker adapter should now acknowledge. Deliveries that
 * must be redelivered do not produce a {@code Delivery}: {@link Inbox#handle} throws instead.
 *
 * @param <R> the handler's result type
 * @param status how the event ended
 * @param duplicate true if the event had already ended and nothing ran now (a redelivery)
 * @param result the handler's result for {@link Status#HANDLED} (stored, so the same on every
 *     redelivery); null otherwise or if the handler returned null
 * @param attempt the attempt that ended the event (0 for {@link Status#MISMATCH})
 * @param failureCode the stored failure code for {@link Status#FAILED} and
 *     {@link Status#DEAD_LETTERED}; empty otherwise
 * @param failureMessage the stored failure message; empty if none
 */
public record Delivery<R>(Status status, boolean duplicate, R result, int attempt, String failureCode,
        String failureMessage) {

    /** How an event ended. Every status means: acknowledge the delivery. */
    public enum Status {
        /** The handler succeeded (now, or earlier if {@code duplicate}). */
        HANDLED,
        /** The handler failed finally; the failure is recorded and replayed to redeliveries. */
        FAILED,
        /** The event ran out of attempts and went to the dead-letter callback. */
        DEAD_LETTERED,
        /** The event id was already used with another payload; nothing ran. */
        MISMATCH
    }
}
