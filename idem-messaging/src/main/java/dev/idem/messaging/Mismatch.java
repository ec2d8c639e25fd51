package dev.idem.messaging;

/**
 * A delivery whose event id had already been used with another payload: a poison message or a
 * producer bug. Nothing ran for it.
 *
 * @param source the message's source
 * @param consumer the inbox's consumer name
 * @param eventId the reused event id
 * @param payload the payload of this delivery (not the stored one); null if null was given
 */
public record Mismatch(String source, String consumer, String eventId, Object payload) {

    /** Receives mismatched deliveries (to park them, alert, count). */
    @FunctionalInterface
    public interface Callback {
        /**
         * Called once per mismatched delivery, on the handling thread. An exception it throws
         * propagates from {@link Inbox#handle}, so the broker redelivers and it is called again.
         *
         * @param mismatch the delivery
         */
        void onMismatch(Mismatch mismatch);
    }
}
