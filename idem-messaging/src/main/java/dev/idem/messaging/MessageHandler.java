package dev.idem.messaging;

/**
 * The consumer's processing of one message. It runs at most once per lease for an event id
 * and, once it returned, never again for that id while the inbox record lives. An exception
 * is transient unless the inbox's {@link dev.idem.engine.FailureClassifier} says it is final.
 *
 * @param <R> the result, stored and returned to redeliveries; it must survive a round trip
 *     through the engine's ObjectMapper
 */
@FunctionalInterface
public interface MessageHandler<R> {
    /**
     * Processes the message.
     *
     * @param message the delivery, with its attempt number
     * @return the result to store (may be null)
     * @throws Exception any failure; transient ones make the inbox rethrow so the broker redelivers
     */
    R handle(InboxMessage message) throws Exception;
}
