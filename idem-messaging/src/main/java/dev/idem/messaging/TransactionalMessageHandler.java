package dev.idem.messaging;

/**
 * A handler that records the inbox entry itself, in the same database transaction as its
 * own writes, so that a crash between the effect and the inbox write cannot repeat the
 * effect. With idem-store-jdbc:
 *
 * <pre>{@code
 * (message, completion) -> store.inTransaction(completion.key(), completion.fencingToken(),
 *         completion.ttl(), completion::encode, handle -> ledger.book(handle, message))
 * }</pre>
 *
 * The handler must call {@link InboxCompletion#encode} on its result and complete the record
 * fenced by {@link InboxCompletion#fencingToken()} inside its transaction; the inbox fails
 * with {@link IllegalStateException} when it returns without having encoded a result.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface TransactionalMessageHandler<R> {
    /**
     * Processes the message and completes the inbox record in the same transaction.
     *
     * @param message the delivery, with its attempt number
     * @param completion what is needed to complete the inbox record
     * @return the result (the one passed to {@link InboxCompletion#encode})
     * @throws Exception any failure; it must have rolled the transaction back
     */
    R handle(InboxMessage message, InboxCompletion<R> completion) throws Exception;
}
